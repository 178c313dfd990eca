#!/usr/bin/env python3
"""`tdc faults --check` has teeth: a registry fault without a must-fail check,
an unknown key, damaged JSON or a name declared twice is refused (exit 2, one
line); a fault without a hook, a hook for no fault, or a doc that names a
fault the registry lacks fails the check (exit 1); the project's own
registry, hooks and docs pass it.

  PYTHONPATH=<root>/ci fault_registry_checks.py"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from case_report import report
from tdc import faults, verbs

def run(*args):
    command, env = verbs.child("faults")
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=60, env=env)
    return done.returncode, done.stdout, done.stderr


def registry_with(tmp, name, change):
    with open(faults.REGISTRY, encoding="utf-8") as f:
        data = json.load(f)
    change(data)
    path = os.path.join(tmp, name + ".json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    return path


def hooks_with(tmp, name, change):
    """A copy of the fault hooks' folder, one file of it changed by `change(text) -> text`."""
    folder = os.path.join(tmp, name)
    shutil.copytree(faults.HOOKS_DIR, folder)
    path = os.path.join(folder, "registration.cpp")
    with open(path, encoding="utf-8") as f:
        text = change(f.read())
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return folder


def doc_with(tmp, name, text):
    path = os.path.join(tmp, name + ".md")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def main():
    with tempfile.TemporaryDirectory() as tmp:
        first = lambda data: data["faults"][0]  # noqa: E731
        damaged = os.path.join(tmp, "damaged.json")
        with open(damaged, "w") as f:
            f.write('{"faults": [')
        refused = [
            ("a fault without must-fail checks", "no must_fail (or must_skip) check",
             registry_with(tmp, "no_must_fail", lambda d: first(d).update(must_fail=[]))),
            ("a fault missing must_fail", "no must_fail (or must_skip) check",
             registry_with(tmp, "missing_must_fail", lambda d: first(d).pop("must_fail"))),
            ("a tolerated fault that must fail a check", "a tolerated fault has must_pass checks and no must_fail",
             registry_with(tmp, "tolerated_must_fail", lambda d: first(d).update(tolerated="allowed"))),
            ("an unknown key", "unknown key 'mustfail'",
             registry_with(tmp, "unknown_key", lambda d: first(d).update(mustfail=[]))),
            ("an unknown check key", "unknown key 'devices'",
             registry_with(tmp, "unknown_check_key",
                           lambda d: first(d)["must_fail"][0].update(devices=[0]))),
            ("a name declared twice", "declared twice",
             registry_with(tmp, "twice", lambda d: d["faults"].append(dict(first(d))))),
            ("a group not declared", "is not one of the registry's groups",
             registry_with(tmp, "bad_group", lambda d: first(d).update(group="elsewhere"))),
            ("damaged JSON", "is not JSON", damaged),
        ]
        cases = []
        for what, message, path in refused:
            code, _, err = run("--check", "--registry", path)
            lines = err.strip().splitlines()
            cases.append((f"refuses {what}", code == 2 and len(lines) == 1 and message in err,
                          f"exit {code}, stderr {err.strip()!r}"))

        hook = "TDC_LOOPBACK_FAULT_HOOK(unnamed)"
        failing = [
            ("a fault without a hook", "fault 'unnamed' has no hook",
             ["--hooks-dir", hooks_with(tmp, "missing_hook", lambda t: t.replace(hook, "void f()"))]),
            ("a hook for no fault", "TDC_LOOPBACK_FAULT_HOOK(unnamed_too) (registration.cpp) names no fault",
             ["--hooks-dir", hooks_with(tmp, "extra_hook",
                                        lambda t: t + "\nTDC_LOOPBACK_FAULT_HOOK(unnamed_too) {}\n")]),
            ("a hook defined twice", "defined 2 times",
             ["--hooks-dir", hooks_with(tmp, "twice_hook", lambda t: t + "\n" + hook + " {}\n")]),
            ("a doc naming an unknown fault", "names fault 'corrupt-everything'",
             ["--docs", doc_with(tmp, "prose", "Caught (loopback faults `corrupt-copy`,\n"
                                               "`corrupt-everything` and `leak`).\n")]),
            ("a command with an unknown fault", "names fault 'gone'",
             ["--docs", doc_with(tmp, "command", "    TDC_LOOPBACK_FAULT=gone ctest -L loopback\n")]),
            ("a fault table row for an unknown fault", "names fault 'renamed-fault'",
             ["--docs", doc_with(tmp, "table", "| fault | seen |\n|---|---|\n| `leak` | x |\n"
                                               "| `renamed-fault` | y |\n")]),
        ]
        for what, message, args in failing:
            code, out, err = run("--check", *args)
            cases.append((f"fails {what}", code == 1 and message in out, f"exit {code}, {out.strip()!r}"))

        # A "default" column is not a fault column (the README's build options).
        fine = doc_with(tmp, "fine", "The loopback fault `leak` (`TDC_LOOPBACK_FAULT=leak`).\n"
                                     "| fault | seen |\n|---|---|\n| `stats-lie` | x |\n\n"
                                     "| option | default |\n|---|---|\n| `TDC_LINKER` | `auto` |\n")
        code, out, err = run("--check", "--docs", fine)
        cases.append(("passes a doc naming registry faults", code == 0, f"exit {code}, {out}{err}"))
        code, out, err = run("--check")
        cases.append(("passes the project's registry, hooks and docs", code == 0, f"exit {code}, {out}{err}"))
        references = sum(1 for path in faults.DOCS
                         for _ in faults._named_faults(open(path, encoding="utf-8").read().split("\n")))
        cases.append(("finds the docs' fault names", references > 10, f"{references} found"))
        code, out, _ = run("--list")
        listed = set(re.findall(r"^  (\S+)", out, re.M))
        cases.append(("lists every fault", code == 0 and listed == {f.name for f in faults.load().faults},
                      f"exit {code}, {len(listed)} listed"))

    return report(cases)


if __name__ == "__main__":
    sys.exit(main())

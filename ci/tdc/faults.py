"""The loopback's fault registry (fixtures/loopback/faults/registry.json):
each TDC_LOOPBACK_FAULT mode, declared once, with what it breaks and the
checks that must catch it. The fault matrix takes its rows from here, CMake
its C++ names (fault_hooks.h), and `tdc faults` lists it and checks that the
hooks and the docs agree with it.

  tdc faults [--list | --markdown | --check] [--group G] [--registry FILE]

--list      (the default) each fault, grouped, with what it breaks
--markdown  the same as a table with the checks, environment and builds
--check     the registry is well formed, every fault has exactly one hook
            (TDC_LOOPBACK_FAULT_HOOK in fixtures/loopback/faults/), and every
            fault README.md, fixtures/loopback/README.md and docs/*.md name is
            in the registry
Exit status: 0 fine, 1 a check failed, 2 the registry (or an argument) is bad.
"""
import argparse
import fnmatch
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = os.path.join(ROOT, "fixtures", "loopback", "faults", "registry.json")
HOOKS_DIR = os.path.join(ROOT, "fixtures", "loopback", "faults")

NAME = re.compile(r"^[a-z0-9]+(?:[-=][a-z0-9]+)*$")
TOP_KEYS = {"about", "groups", "faults"}
FAULT_KEYS = {"name", "group", "breaks", "notes", "env", "runs", "must_fail", "must_pass", "must_skip",
              "tolerated", "requirement", "not_applicable", "prerequisite_owner", "message_contains",
              "what_to_add"}
REQUIRED = ("name", "group", "breaks")
KINDS = ("must_fail", "must_pass", "must_skip")
CHECK_KEYS = {"check", "index", "dtype", "not_on"}


class RegistryError(Exception):
    """The registry is unreadable or malformed: one line, exit 2."""


class Check:
    """The tests of one check, chosen by the metadata the fixtures record in
    GoogleTest's XML (check, device, dtype), never by taking names apart:
    `check` is a glob over check names ("Forward.*"), `index` a device index
    of the backend under test (None: any, or none), `dtype` a dtype name."""

    def __init__(self, check, index=None, dtype=None):
        self.check, self.index, self.dtype = check, index, dtype

    def matches(self, metadata, backend):
        return (fnmatch.fnmatchcase(metadata.get("check", ""), self.check)
                and (self.index is None or metadata.get("device") == f"{backend}:{self.index}")
                and (self.dtype is None or metadata.get("dtype") == self.dtype))

    def describe(self, backend):
        where = f" on {backend}:{self.index}" if self.index is not None else ""
        return self.check + where + (f" in {self.dtype}" if self.dtype else "")

    def __eq__(self, other):
        return (self.check, self.index, self.dtype) == (other.check, other.index, other.dtype)

    def __repr__(self):
        return f"Check({self.check!r}, {self.index!r}, {self.dtype!r})"


class Fault:
    """One registry entry. Its checks per build: checks(kind, backend)."""

    def __init__(self, entry):
        self.name = entry["name"]
        self.group = entry["group"]
        self.breaks = entry["breaks"]
        self.notes = entry.get("notes", "")
        self.env = dict(entry.get("env", {}))
        self.runs = list(entry.get("runs", []))
        self.not_applicable = dict(entry.get("not_applicable", {}))
        self.prerequisite_owner = entry.get("prerequisite_owner")
        self.message_contains = list(entry.get("message_contains", []))
        # The run's "What to add" (tdc.summarize.what_to_add): one entry per
        # text, each naming its text, and no other entry.
        self.what_to_add = list(entry.get("what_to_add", []))
        # Why a conforming suite passes under it (LibTorch allows the
        # behaviour): its must_pass checks are then what it proves.
        self.tolerated = entry.get("tolerated", "")
        # The section of docs/backends.md that states what it breaks.
        self.requirement = entry.get("requirement", "")
        self._checks = {kind: entry.get(kind, []) for kind in KINDS}

    @property
    def hook(self):
        """The C++ identifier of its hook (fault_hooks.cmake makes the same)."""
        return re.sub(r"[-=]", "_", self.name)

    def checks(self, kind, backend):
        """The Checks of `kind` (must_fail, must_pass, must_skip) that apply to the build
        whose loopback is named `backend`: each index and dtype listed is one."""
        result = []
        for entry in self._checks[kind]:
            if backend in entry.get("not_on", {}):
                continue
            indices = _as_list(entry.get("index"))
            dtypes = _as_list(entry.get("dtype"))
            result += [Check(entry["check"], index, dtype) for index in indices for dtype in dtypes]
        return result

    def what_to_add_problems(self, entries):
        """What is wrong with a run's "What to add" (the summary's entries)
        for this fault: a text no entry names, an entry that names none."""
        if not self.what_to_add:
            return []
        fixes = [entry["fix"] for entry in entries]
        problems = [f"What to add does not name {text!r}" for text in self.what_to_add
                    if not any(text in fix for fix in fixes)]
        problems += [f"What to add names another gap too: {fix!r}" for fix in fixes
                     if not any(text in fix for text in self.what_to_add)]
        return problems

    def skipped_checks(self, kind, backend):
        """'<check>: <reason>' for each check of `kind` left out on `backend`."""
        return [f"{e['check']}: {e['not_on'][backend]}" for e in self._checks[kind]
                if backend in e.get("not_on", {})]


class Registry:
    def __init__(self, data, path):
        self.path = path
        self.about = data.get("about", "")
        self.groups = dict(data["groups"])
        self.faults = [Fault(entry) for entry in data["faults"]]

    def by_name(self, name):
        return next((f for f in self.faults if f.name == name), None)


def _as_list(value):
    return value if isinstance(value, list) else [value]


def load(path=REGISTRY):
    """The registry at `path`, validated; RegistryError names the first problem."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise RegistryError(f"cannot read fault registry {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RegistryError(f"{path} is not JSON: {e}") from None
    _validate(data, path)
    return Registry(data, path)


def _fail(path, where, message):
    raise RegistryError(f"{path}: {where}: {message}")


def _expect(value, kind, path, where):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        _fail(path, where, f"expected {kind.__name__}, got {type(value).__name__}")


def _validate(data, path):
    _expect(data, dict, path, "top level")
    for key in set(data) - TOP_KEYS:
        _fail(path, "top level", f"unknown key '{key}'")
    for key in ("groups", "faults"):
        if key not in data:
            _fail(path, "top level", f"missing '{key}'")
    _expect(data["groups"], dict, path, "groups")
    for group, text in data["groups"].items():
        _expect(text, str, path, f"groups.{group}")
    _expect(data["faults"], list, path, "faults")
    seen = set()
    for i, entry in enumerate(data["faults"]):
        where = f"faults[{i}]"
        _expect(entry, dict, path, where)
        if isinstance(entry.get("name"), str):
            where += f" ({entry['name']})"
        for key in sorted(set(entry) - FAULT_KEYS):
            _fail(path, where, f"unknown key '{key}'")
        for key in REQUIRED:
            if key not in entry:
                _fail(path, where, f"missing '{key}'")
        for key in ("name", "group", "breaks", "notes", "tolerated", "requirement"):
            if key in entry:
                _expect(entry[key], str, path, f"{where}.{key}")
        if not NAME.match(entry["name"]):
            _fail(path, where, "the name must be lower-case words joined by '-' or '='")
        if entry["name"] == "none" or entry["name"] in seen:
            _fail(path, where, "the name is taken (declared twice, or 'none')")
        seen.add(entry["name"])
        if entry["group"] not in data["groups"]:
            _fail(path, where, f"group '{entry['group']}' is not one of the registry's groups")
        if not entry["breaks"].strip() or "\n" in entry["breaks"]:
            _fail(path, where, "'breaks' must be one non-empty line")
        for key in ("env", "not_applicable"):
            _expect(entry.get(key, {}), dict, path, f"{where}.{key}")
            for k, v in entry.get(key, {}).items():
                _expect(v, str, path, f"{where}.{key}.{k}")
        for key in ("runs", "message_contains", "what_to_add"):
            _expect(entry.get(key, []), list, path, f"{where}.{key}")
            for j, v in enumerate(entry.get(key, [])):
                _expect(v, str, path, f"{where}.{key}[{j}]")
                if not v:
                    _fail(path, f"{where}.{key}[{j}]", "is empty")
        if "prerequisite_owner" in entry:
            _expect(entry["prerequisite_owner"], str, path, f"{where}.prerequisite_owner")
        for kind in KINDS:
            _expect(entry.get(kind, []), list, path, f"{where}.{kind}")
            for j, check in enumerate(entry.get(kind, [])):
                _validate_check(check, path, f"{where}.{kind}[{j}]")
        # What the fault proves: a check fails, or skips saying why, or (a
        # behaviour LibTorch allows, said in `tolerated`) the checks it would
        # have broken still pass.
        if entry.get("tolerated"):
            if entry.get("must_fail") or not entry.get("must_pass"):
                _fail(path, where, "a tolerated fault has must_pass checks and no must_fail check")
        elif not entry.get("must_fail") and not entry.get("must_skip"):
            _fail(path, where, "no must_fail (or must_skip) check: a fault that nothing must catch proves nothing")


def _validate_check(check, path, where):
    _expect(check, dict, path, where)
    for key in sorted(set(check) - CHECK_KEYS):
        _fail(path, where, f"unknown key '{key}'")
    if "check" not in check:
        _fail(path, where, "missing 'check'")
    _expect(check["check"], str, path, f"{where}.check")
    if not check["check"]:
        _fail(path, where, "'check' is empty")
    for key, kind in (("index", int), ("dtype", str)):
        if key in check:
            values = check[key] if isinstance(check[key], list) else [check[key]]
            if not values:
                _fail(path, f"{where}.{key}", "is an empty list")
            for value in values:
                _expect(value, kind, path, f"{where}.{key}")
    _expect(check.get("not_on", {}), dict, path, f"{where}.not_on")
    for k, v in check.get("not_on", {}).items():
        _expect(v, str, path, f"{where}.not_on.{k}")


# --- the hooks: one TDC_LOOPBACK_FAULT_HOOK(<id>) per fault ------------------

HOOK = re.compile(r"^\s*TDC_LOOPBACK_FAULT_HOOK\((\w+)\)", re.M)


def hook_problems(registry, hooks_dir=HOOKS_DIR):
    """What disagrees between the registry and the hooks in `hooks_dir`."""
    found = {}
    for path in sorted(glob.glob(os.path.join(hooks_dir, "*.cpp"))):
        with open(path, encoding="utf-8") as f:
            for hook in HOOK.findall(f.read()):
                found.setdefault(hook, []).append(os.path.basename(path))
    declared = {fault.hook: fault.name for fault in registry.faults}
    problems = [f"fault '{name}' has no hook: TDC_LOOPBACK_FAULT_HOOK({hook}) in {hooks_dir}"
                for hook, name in declared.items() if hook not in found]
    problems += [f"hook TDC_LOOPBACK_FAULT_HOOK({hook}) ({', '.join(files)}) names no fault of the registry"
                 for hook, files in found.items() if hook not in declared]
    problems += [f"fault hook {hook} is defined {len(files)} times ({', '.join(files)})"
                 for hook, files in found.items() if len(files) > 1]
    return problems


# --- the docs: every fault they name is a registry fault ----------------------

DOCS = ([os.path.join(ROOT, "README.md"), os.path.join(ROOT, "fixtures", "loopback", "README.md")]
        + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))))
# TDC_LOOPBACK_FAULT=<name>, in prose or in a command.
ASSIGNED = re.compile(r"TDC_LOOPBACK_FAULT=([a-z0-9][a-z0-9=-]*)")
# "loopback fault `a`", "loopback faults `a`, `b` and `c`": the names listed.
_LISTED = r"`[^`]*`(?:(?:,\s*|,?\s+and\s+|,?\s+or\s+)`[^`]*`)*"
NAMED = re.compile(r"loopback faults?:?\s+(" + _LISTED + ")", re.I)
# The names a table cell starts with: "`a`", "`a`, `b` (what they do ...)".
LEADING = re.compile(r"^\s*(" + _LISTED + ")")
TICKED = re.compile(r"`([^`]*)`")
# A table cell (pipes escaped as \\| stay in the cell).
CELL_SPLIT = re.compile(r"(?<!\\)\|")


def doc_problems(registry, paths=None):
    """'<file>:<line>: ...' for each fault a doc names that the registry lacks."""
    known = {fault.name for fault in registry.faults} | {"none"}
    problems = []
    for path in paths if paths is not None else DOCS:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except OSError as e:
            raise RegistryError(f"cannot read {path}: {e.strerror}") from None
        for number, name in _named_faults(lines):
            if name not in known:
                problems.append(f"{os.path.relpath(path, ROOT)}:{number}: names fault '{name}', "
                                f"which {os.path.relpath(registry.path, ROOT)} does not declare")
    return problems


def _named_faults(lines):
    """(line number, name) of each fault a markdown file names: in a table,
    the names each cell of a column whose header says "fault" starts with;
    in prose, the names listed after "loopback fault(s)", and
    TDC_LOOPBACK_FAULT=<name>."""
    fault_columns = []
    previous = ""
    for number, line in enumerate(lines, 1):
        if line.startswith("|"):
            cells = CELL_SPLIT.split(line.strip().strip("|"))
            if not previous.startswith("|"):  # a table's header
                # The word, not the letters: a "default" column names no fault.
                fault_columns = [i for i, cell in enumerate(cells) if re.search(r"\bfaults?\b", cell.lower())]
            else:
                for i in fault_columns:
                    listed = LEADING.match(cells[i]) if i < len(cells) else None
                    for name in TICKED.findall(listed.group(1)) if listed else []:
                        if NAME.match(name):  # `extend()`, `Copies`: not a fault's name
                            yield number, name
        previous = line
        for name in ASSIGNED.findall(line):
            yield number, name
    # Clauses may wrap: read them from the text with its line breaks folded.
    text = "\n".join(lines)
    for match in NAMED.finditer(text):
        number = text.count("\n", 0, match.start()) + 1
        for name in TICKED.findall(match.group(1)):
            yield number, name


# --- listings -----------------------------------------------------------------

def _checks_text(fault, kind):
    parts = []
    for entry in fault._checks[kind]:
        text = f"`{entry['check']}`"
        details = []
        if "index" in entry:
            details.append("on " + ", ".join(str(i) for i in _as_list(entry["index"])))
        if "dtype" in entry:
            details.append(", ".join(_as_list(entry["dtype"])))
        if entry.get("not_on"):
            details.append("; ".join(f"not on {b}: {r}" for b, r in entry["not_on"].items()))
        parts.append(text + (f" ({'; '.join(details)})" if details else ""))
    return "<br>".join(parts)


def format_list(registry, group=None):
    lines = []
    width = max(len(f.name) for f in registry.faults)
    for name, description in registry.groups.items():
        if group and name != group:
            continue
        lines.append(f"{name}: {description}")
        for fault in (f for f in registry.faults if f.group == name):
            lines.append(f"  {fault.name:<{width}}  {fault.breaks}")
            for backend, reason in fault.not_applicable.items():
                lines.append(f"  {'':<{width}}  (not on {backend}: {reason})")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def format_markdown(registry, group=None):
    rows = ["| fault (`TDC_LOOPBACK_FAULT`) | group | what it breaks | must fail | must still pass "
            "| runs (check globs) | environment | not applicable |",
            "|---|---|---|---|---|---|---|---|"]
    for fault in registry.faults:
        if group and fault.group != group:
            continue
        env = "<br>".join(f"`{k}={v}`" for k, v in fault.env.items())
        runs = ", ".join(f"`{g}`" for g in fault.runs) or "all loopback checks"
        na = "<br>".join(f"{b}: {r}" for b, r in fault.not_applicable.items())
        breaks = fault.breaks.replace("|", "\\|")
        caught = _checks_text(fault, "must_fail")
        if fault._checks["must_skip"]:
            caught = "<br>".join(filter(None, [caught, "skips: " + _checks_text(fault, "must_skip")]))
        if fault.tolerated:
            caught = "none (tolerated: " + fault.tolerated.replace("|", "\\|") + ")"
        rows.append(f"| `{fault.name}` | {fault.group} | {breaks} | {caught} "
                    f"| {_checks_text(fault, 'must_pass')} | {runs} | {env} | {na} |")
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="tdc faults", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="each fault with what it breaks (default)")
    mode.add_argument("--markdown", action="store_true", help="the full table, in markdown")
    mode.add_argument("--check", action="store_true", help="registry, hooks and docs agree")
    parser.add_argument("--group", help="only this group's faults")
    parser.add_argument("--registry", default=REGISTRY)
    parser.add_argument("--hooks-dir", default=HOOKS_DIR, help="where the hooks are (--check)")
    parser.add_argument("--docs", nargs="*", help="markdown files to check (default README.md docs/*.md)")
    args = parser.parse_args(argv)
    try:
        registry = load(args.registry)
        if args.group and args.group not in registry.groups:
            raise RegistryError(f"--group '{args.group}': expected one of {', '.join(registry.groups)}")
        if args.check:
            problems = hook_problems(registry, args.hooks_dir) + doc_problems(registry, args.docs)
            for problem in problems:
                print(problem)
            print(f"{len(registry.faults)} faults; {len(problems)} problem(s)")
            return 1 if problems else 0
    except RegistryError as e:
        print(f"tdc faults: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(format_markdown(registry, args.group) if args.markdown
                     else format_list(registry, args.group))
    return 0


if __name__ == "__main__":
    sys.exit(main())

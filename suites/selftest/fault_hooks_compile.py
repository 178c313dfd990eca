#!/usr/bin/env python3
"""The build keeps the fault registry and the hooks in step: a hook for a
name the registry lacks does not compile, and a registry fault whose hook is
defined nowhere does not link, against the fault_hooks.h CMake generated
from the registry (the real TDC_LOOPBACK_FAULT_HOOK, the real -z defs link).
The same hook for a registry fault compiles, and all hooks link.

  PYTHONPATH=<root>/ci fault_hooks_compile.py --cxx COMPILER --include DIR..."""
import argparse
import os
import subprocess
import sys
import tempfile

from case_report import report
from tdc import faults

# Takes every hook's address, as faults/layer.cpp does.
TABLE_USER = """#include "fault_hooks.h"
void run_every_hook(tdc::loopback::Parts& parts) {
  for (const auto& entry : tdc::loopback::faults::kFaults) entry.hook(parts);
}
"""


def compile_(cxx, includes, source, tmp, *flags):
    path = os.path.join(tmp, f"snippet{abs(hash(source))}.cpp")
    with open(path, "w") as f:
        f.write(source)
    command = [cxx, "-std=c++17", *[f"-I{os.path.abspath(d)}" for d in includes], *flags, path]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp)
    return done.returncode, done.stdout + done.stderr


def hooks_source(hook_ids):
    return '#include "faults/hook.h"\n' + "".join(f"TDC_LOOPBACK_FAULT_HOOK({h}) {{}}\n" for h in hook_ids)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--include", action="append", required=True)
    args = parser.parse_args()
    hooks = [fault.hook for fault in faults.load().faults]
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        code, out = compile_(args.cxx, args.include, hooks_source([hooks[0]]), tmp, "-fsyntax-only")
        cases.append((f"a hook for registry fault {hooks[0]} compiles", code == 0, out[-2000:]))
        code, out = compile_(args.cxx, args.include, hooks_source(["no_such_fault"]), tmp, "-fsyntax-only")
        cases.append(("a hook for a name the registry lacks does not compile",
                      code != 0 and "no_such_fault" in out, out[-2000:]))

        def link(hook_ids, name):
            objects = []
            for i, source in enumerate((TABLE_USER, hooks_source(hook_ids))):
                obj = os.path.join(tmp, f"{name}{i}.o")
                code, out = compile_(args.cxx, args.include, source, tmp, "-fPIC", "-c", "-o", obj)
                if code != 0:
                    return code, out
                objects.append(obj)
            done = subprocess.run([args.cxx, "-shared", "-Wl,-z,defs", "-o", os.path.join(tmp, name + ".so"),
                                   *objects], capture_output=True, text=True, timeout=300)
            return done.returncode, done.stdout + done.stderr

        code, out = link(hooks, "every_hook")
        cases.append(("every registry fault with its hook links", code == 0, out[-2000:]))
        missing = hooks[-1]
        code, out = link(hooks[:-1], "one_missing")
        cases.append((f"a registry fault without a hook ({missing}) does not link",
                      code != 0 and missing in out, out[-2000:]))
    return report(cases)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""docs/backends.md and the checks stay in step (issue "Verdicts on a
backend TDC has never seen", round 2): every check the page names
(`Suite.Check`, or a glob of them) is a check of the suites (the level-3
mustpass list names every one), and every loopback fault that declares the
page's section it breaks (`requirement` in the fault registry) is named in
that section, together with each check that must catch it. A new
requirement is one section here and one registry field; a check renamed or
a row forgotten fails this.

  PYTHONPATH=<root>/ci backends_doc_checks.py [--doc FILE] [--registry FILE]
Exit status: 0 in step, 1 not, 2 unreadable input."""
import argparse
import fnmatch
import os
import sys

from tdc import ROOT, backends_doc, faults, levels
from tdc.errors import InputError

NAMED_CHECK, sections = backends_doc.NAMED_CHECK, backends_doc.sections


def problems_of(doc_path, registry_path):
    try:
        with open(doc_path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read {doc_path}: {e.strerror}") from None
    known = levels.read_mustpass(3)
    if not known:
        raise InputError("suites/mustpass/level3.txt is missing or empty: no list of checks to hold the page to")
    problems = []
    named = sorted(set(NAMED_CHECK.findall(text)))
    for check in named:
        if not any(fnmatch.fnmatchcase(k, check) for k in known):
            problems.append(f"{os.path.basename(doc_path)} names `{check}`, which is no check of the suites")
    if not named:
        problems.append(f"{os.path.basename(doc_path)} names no check at all")
    by_title = sections(text)
    registry = faults.load(registry_path)
    with_requirement = [fault for fault in registry.faults if fault.requirement]
    for fault in with_requirement:
        body = by_title.get(fault.requirement)
        if body is None:
            problems.append(f"fault {fault.name}: its requirement section '### {fault.requirement}' is not in "
                            f"{os.path.basename(doc_path)}")
            continue
        if f"`{fault.name}`" not in body:
            problems.append(f"fault {fault.name}: section '{fault.requirement}' does not name it")
        for kind in ("must_fail", "must_skip"):
            for entry in fault._checks[kind]:
                check = entry["check"]
                if not any(fnmatch.fnmatchcase(n, check) or fnmatch.fnmatchcase(check, n)
                           for n in NAMED_CHECK.findall(body)):
                    problems.append(f"fault {fault.name}: section '{fault.requirement}' does not name its "
                                    f"{kind} check {check}")
    if not with_requirement:
        problems.append(f"{registry_path}: no fault declares a requirement: nothing ties the page to the faults")
    return problems, len(named), len(with_requirement)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--doc", default=os.path.join(ROOT, "docs", "backends.md"))
    parser.add_argument("--registry", default=faults.REGISTRY)
    args = parser.parse_args()
    try:
        problems, checks, tied = problems_of(args.doc, args.registry)
    except (InputError, faults.RegistryError) as e:
        print(f"backends_doc_checks: {e}", file=sys.stderr)
        return 2
    for problem in problems:
        print("FAILED:", problem)
    if problems:
        return 1
    print(f"ok: {checks} checks named by {os.path.basename(args.doc)} exist; {tied} faults named with "
          "their checks in their requirement's section")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""One line per self-test case, `ok` or `FAIL` with what went wrong; the exit
status for the lot (0 all passed, 1 one failed)."""


def report(cases):
    """cases: (name, passed, detail shown when it failed)."""
    failed = 0
    for name, ok, detail in cases:
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"))
    return 1 if failed else 0

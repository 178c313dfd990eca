"""How a self-test script ends: each problem on a "FAILED:" line and exit
status 1, or one "ok:" line and 0."""


def finish(problems, ok_message):
    for problem in problems:
        print("FAILED:", problem)
    if not problems:
        print("ok:", ok_message)
    return 1 if problems else 0

#!/usr/bin/env python3
"""Every EXPECT_* / ASSERT_* of the suites carries a message (`<< "..."`)
saying what was expected, what was seen and what it means for the backend
(issue 33): GoogleTest's expression alone ("Value of: independent(a, b)")
tells a vendor nothing. Every one has a message, so any without fails:
there is no allow-list.

  assertions_say_why.py [--suites DIR]
Exit status: 0 every one has a message, 1 one has none, 2 unreadable input."""
import argparse
import collections
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.dirname(HERE)
MACRO = re.compile(r"\b((?:EXPECT|ASSERT)_[A-Z0-9_]+)\s*\(")


def _close(text, start):
    """The index after the parenthesis that closes the one before `start`,
    string and character literals skipped."""
    depth, i = 1, start
    while i < len(text) and depth:
        c = text[i]
        if c in "\"'":
            i += 1
            while i < len(text) and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return i


def without_message(text):
    """(line, expression) of each assertion in C++ `text` not followed by `<<`."""
    found = []
    for match in MACRO.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if "//" in text[line_start:match.start()]:
            continue  # a comment
        end = _close(text, match.end())
        if not text[end:].lstrip().startswith("<<"):
            found.append((text.count("\n", 0, match.start()) + 1, " ".join(text[match.start():end].split())))
    return found


def scan(suites):
    """{'<file> | <expression>': [line, ...]} over the suites' sources, the
    self-tests' own left out."""
    found = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(suites, "**", "*.cpp"), recursive=True) +
                       glob.glob(os.path.join(suites, "**", "*.h"), recursive=True)):
        relative = os.path.relpath(path, suites)
        if relative.split(os.sep)[0] == "selftest":
            continue
        with open(path, encoding="utf-8") as handle:
            for line, expression in without_message(handle.read()):
                found[f"{relative} | {expression}"].append(line)
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--suites", default=SUITES)
    args = parser.parse_args()
    try:
        found = scan(args.suites)
    except (OSError, UnicodeDecodeError) as error:
        print(f"assertions_say_why: cannot read {getattr(error, 'filename', '') or args.suites}: {error}",
              file=sys.stderr)
        return 2
    problems = []
    for key, lines in sorted(found.items()):
        for line in lines:
            path, expression = key.split(" | ", 1)
            problems.append(f"{path}:{line}: {expression} has no message: say what was expected, what was seen "
                            "and what it means for the backend (<< \"...\")")
    for problem in problems:
        print("FAILED:", problem)
    if problems:
        return 1
    print(f"ok: every assertion under {args.suites} has a message")
    return 0


if __name__ == "__main__":
    sys.exit(main())

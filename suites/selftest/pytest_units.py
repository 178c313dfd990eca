#!/usr/bin/env python3
"""Runs one file of ci/tests (the units of ci/tdc) with pytest, in Debian's
/usr/bin/python3, which has python3-pytest, python3-jsonschema and
python3-junitparser (ci/lib.sh, tdc_provision_selftest_tools, installs them).
Without them the entry is skipped (exit 77), saying what is missing.

  pytest_units.py TEST_FILE"""
import importlib.util
import os
import sys

NEEDED = {"pytest": "python3-pytest", "jsonschema": "python3-jsonschema", "junitparser": "python3-junitparser"}


def main():
    missing = [package for module, package in NEEDED.items() if importlib.util.find_spec(module) is None]
    if missing:
        print(f"skipped: {sys.executable} lacks {', '.join(missing)} "
              f"(apt-get install {' '.join(missing)}; ci/selftest provisions them)")
        return 77
    import pytest
    return pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", os.path.dirname(sys.argv[1]), sys.argv[1]])


if __name__ == "__main__":
    sys.exit(main())

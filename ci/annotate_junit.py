#!/usr/bin/env python3
"""Puts context.json and each failure's reason into ctest's JUnit file (tdc/annotate.py; --help says how)."""
import sys

from tdc.annotate import main

if __name__ == "__main__":
    sys.exit(main())

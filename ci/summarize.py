#!/usr/bin/env python3
"""Summarizes a run: JUnit and GoogleTest XML to summary.json and a per-device table (tdc/summarize.py; --help says how)."""
import sys

from tdc.summarize import main

if __name__ == "__main__":
    sys.exit(main())

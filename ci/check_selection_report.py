#!/usr/bin/env python3
"""Checks device_select --verbose output against this host (tdc/selection_report.py; --help says how)."""
import sys

from tdc.selection_report import main

if __name__ == "__main__":
    sys.exit(main())

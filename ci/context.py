#!/usr/bin/env python3
"""Writes context.json: where and with what a run was made (tdc/context.py; --help says how)."""
import sys

from tdc.context import main

if __name__ == "__main__":
    sys.exit(main())

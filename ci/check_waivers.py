#!/usr/bin/env python3
"""Fails when a known-failure waiver applies to no test of any suite binary (tdc/waivers.py; --help says how)."""
import sys

from tdc.waivers import main

if __name__ == "__main__":
    sys.exit(main())

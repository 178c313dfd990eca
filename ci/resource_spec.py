#!/usr/bin/env python3
"""Writes CTest's resource spec from device discovery (tdc/resource_spec.py; --help says how)."""
import sys

from tdc.resource_spec import main

if __name__ == "__main__":
    sys.exit(main())

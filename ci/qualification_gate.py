#!/usr/bin/env python3
"""The level-3 benchmark gate; writes bench/gate.json (tdc/qualification_gate.py; --help says how)."""
import sys

from tdc.qualification_gate import main

if __name__ == "__main__":
    sys.exit(main())

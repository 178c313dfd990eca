#!/usr/bin/env python3
"""One readiness verdict (healthy, unhealthy, unknown) from a run's summary.json (tdc/verdict.py; --help says how)."""
import sys

from tdc.verdict import main

if __name__ == "__main__":
    sys.exit(main())

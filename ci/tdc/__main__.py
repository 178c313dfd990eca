"""python3 -m tdc <verb> [arguments]: the same program as bin/tdc; the verbs
are tdc/verbs.py's table (`python3 -m tdc --help` lists them)."""
import sys

from tdc.verbs import main

if __name__ == "__main__":
    sys.exit(main())

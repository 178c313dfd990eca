"""TDC's Python tools: one package, imported the ordinary way.

The command lines in ci/ are thin (`from tdc.<module> import main`); the
same mains answer `python3 -m tdc <verb>` (see tdc/__main__.py). A script's
own folder is on sys.path, so ci/<tool> finds ci/tdc; self-tests get
PYTHONPATH=<root>/ci from their ctest registration.

Conventions every module keeps (README, "Exit status"):
  0 passed, 1 a check failed, 2 bad input or configuration: one line on
  stderr, never a traceback (tdc.cli.run_main).
"""
import os

# The checkout this package belongs to: ci/tdc/ -> the tree's root.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

"""TDC's Python tools: one package, imported the ordinary way.

Every command is a verb of one table, tdc/verbs.py: `tdc <verb>` (bin/tdc),
`python3 -m tdc <verb>` and the one-line wrappers in ci/ run it. A script's
own folder is on sys.path, so ci/<tool> finds ci/tdc; self-tests get
PYTHONPATH=<root>/ci from their ctest registration.

Conventions every module keeps (README, "Exit status"):
  0 passed, 1 a check failed, 2 bad input or configuration: one line on
  stderr, never a traceback (tdc.cli.run_main).
"""
import os

# The checkout this package belongs to: ci/tdc/ -> the tree's root.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

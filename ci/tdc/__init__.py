"""TDC's Python tools: one package, imported the ordinary way.

Every command is a verb of one table, tdc/verbs.py: `tdc <verb>` (bin/tdc),
`python3 -m tdc <verb>` and the few one-line wrappers in ci/ (ci/package,
ci/verify, ci/merge) run it. A script's own folder is on sys.path, so a
ci/ wrapper finds ci/tdc; bin/tdc, the one launcher, sets PYTHONPATH=<root>/ci
(the ci/ scripts run verbs through it, ci/lib.sh), ctest's self-tests get it
from tdc_add_selftest, pytest from ci/tests/pytest.ini, and a tool or test
that runs another verb uses tdc.verbs.child.

Conventions every module keeps (README, "Exit status"):
  0 passed, 1 a check failed, 2 bad input or configuration: one line on
  stderr, never a traceback (tdc.cli.run_main).
"""
import os

# The checkout this package belongs to: ci/tdc/ -> the tree's root.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

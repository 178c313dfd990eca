"""TDC's Python tools: one package, imported the ordinary way.

Every command is a verb of one table, tdc/verbs.py: `tdc <verb>` (bin/tdc),
`python3 -m tdc <verb>` and the few one-line wrappers in ci/ (ci/package,
ci/verify, ci/merge) run it. A script's own folder is on sys.path, so a
ci/ wrapper finds ci/tdc. Anything else puts ci/ on Python's path through one
definition per language: ci/tools.sh for the shell (bin/tdc, the ci/
scripts, the Slurm jobs, the fleet adapters), tdc.verbs.tools_env for
Python (tdc.verbs.child runs another verb), cmake/tdc_tools_environment.cmake
for ctest's entries, ci/tests/pytest.ini for pytest.

Conventions every module keeps (README, "Exit status"):
  0 passed, 1 a check failed, 2 bad input or configuration: one line on
  stderr, never a traceback (tdc.cli.run_main).
"""
import os

# The checkout this package belongs to: ci/tdc/ -> the tree's root.
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Sourced, never run: how the shell runs TDC's Python tools (the package tdc
# in this folder), with this folder first on Python's path. The shell's one
# place for that path: bin/tdc, ci/lib.sh (every ci/ script), the Slurm jobs
# and the fleet adapters source this file. Python's is tdc.verbs.tools_env,
# CMake's cmake/tdc_tools_environment.cmake, pytest's ci/tests/pytest.ini.
# Found from this file's own place, so it serves a source tree (<root>/ci)
# and an installed TDC (<prefix>/share/tdc/ci) alike. Only bash, dirname and
# pwd: ci/health runs with a PATH that may hold little more (health_fails_closed).
TDC_TOOLS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# tdc_python COMMAND...: COMMAND with the tools importable (a self-test
# script, a module of tdc.fleet). `tdc_python exec ...` replaces the shell,
# so a job's or a background run's process is Python itself.
tdc_python() { PYTHONPATH="$TDC_TOOLS${PYTHONPATH:+:$PYTHONPATH}" "$@"; }

# tdc_tool VERB ARGS...: `tdc VERB ARGS...` (tdc/verbs.py's table).
tdc_tool() { tdc_python python3 -m tdc "$@"; }

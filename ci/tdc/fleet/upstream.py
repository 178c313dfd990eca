"""What tdc.fleet and tdc.report take from the rest of TDC, in one place:
the error and command-line conventions (tdc.errors, tdc.cli), text for a
terminal (tdc.terminal), the package format and its verifier
(tdc.packaging, tdc.verify), the suite version (tdc.context), test names (tdc.names), what the ordering checks observed
(tdc.ordering) and the benchmark reader (tdc.bench.results). The fleet and
report modules import these names from here, so a change there is one edit
here.

It adds one thing of its own: `require`, for the third-party modules the
reports need (Jinja2, matplotlib, Selenium), which the rest of TDC, on a bare
python3, does without."""
import importlib

from tdc import ROOT  # noqa: F401 - re-exported
from tdc import context, names, ordering, packaging, results, safeio, verify  # noqa: F401 - re-exported
from tdc.bench import results as bench_results  # noqa: F401 - re-exported
from tdc.cli import BAD_INPUT, Parser, run_main, whole  # noqa: F401 - re-exported
from tdc.errors import InputError, one_line  # noqa: F401 - re-exported
from tdc.terminal import printable  # noqa: F401 - re-exported


def require(module, debian_package):
    """Imports a third-party module or raises InputError naming the Debian
    package that provides it (tools that need one run on /usr/bin/python3)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"needs the Python module {module.split('.')[0]}: install Debian's "
                         f"{debian_package} (ci/lib.sh tdc_provision_report_tools) and run with "
                         f"/usr/bin/python3")

"""The third-party modules the reports need (Jinja2, matplotlib, Selenium),
which the rest of TDC, on a bare python3, does without: `require` imports
one or says, in one line, which Debian package provides it."""
import importlib

from tdc.errors import InputError


def require(module, debian_package):
    """Imports a third-party module or raises InputError naming the Debian
    package that provides it (tools that need one run on /usr/bin/python3)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"needs the Python module {module.split('.')[0]}: install Debian's "
                         f"{debian_package} (ci/lib.sh tdc_provision_report_tools) and run with "
                         f"/usr/bin/python3") from None

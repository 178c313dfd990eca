"""What tdc.fleet and tdc.report take from the rest of TDC, in one place.

Everything the fleet and report modules need from the package format, the
verifier, the benchmark reader and the command-line conventions comes
through this module, so that when those move into the tdc package (branch
`pypkg`: tdc.errors, tdc.cli, tdc.junit, tdc.results, the verifier) only
this file changes. Until then it loads today's ci/verify, ci/tdc_package.py
and bench/bench_results.py by file path (importlib), and carries the
one-line-error convention (exit 2, never a traceback) itself."""
import importlib.machinery
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BAD_INPUT = 2


class InputError(Exception):
    """Bad input or configuration: one line naming the input, exit 2."""

    def __init__(self, message):
        super().__init__(one_line(message))


def one_line(error):
    text = str(error).strip()
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return type(error).__name__ if isinstance(error, BaseException) else "(no message)"


def run_main(prog, body, argv=None):
    """body(argv) -> exit status; bad input, OSError and anything unexpected
    become one line '<prog>: <why>' on stderr and exit 2."""
    try:
        status = body(sys.argv[1:] if argv is None else argv)
    except InputError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return BAD_INPUT
    except OSError as error:
        where = f" {error.filename}:" if error.filename else ""
        print(f"{prog}:{where} {error.strerror or one_line(error)}", file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return BAD_INPUT
    except SystemExit as request:  # argparse's --help
        return request.code if isinstance(request.code, int) else BAD_INPUT
    except Exception as error:  # noqa: BLE001 - fail closed: one line, never a traceback
        print(f"{prog}: internal error ({type(error).__name__}: {one_line(error)}); please report it",
              file=sys.stderr)
        return BAD_INPUT
    return status if isinstance(status, int) else 0


def require(module, debian_package):
    """Imports a third-party module or raises InputError naming the Debian
    package that provides it (tools that need one run on /usr/bin/python3)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"needs the Python module {module.split('.')[0]}: install Debian's "
                         f"{debian_package} (ci/lib.sh tdc_provision_report_tools) and run with "
                         f"/usr/bin/python3")


_loaded = {}


def _load(name, relative):
    if name not in _loaded:
        path = os.path.join(ROOT, relative)
        loader = importlib.machinery.SourceFileLoader(name, path)
        spec = importlib.util.spec_from_loader(name, loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        _loaded[name] = module
    return _loaded[name]


def package_format():
    """MANIFEST, STATEMENT, KNOWN_FAILURE, manifest_lines, check_name (ci/tdc_package.py)."""
    return _load("tdc_package", "ci/tdc_package.py")


def verifier():
    """ci/verify's checks: extract, check_manifest, read_statement, load_json,
    check_context, check_results, check_bench_gate."""
    return _load("tdc_verify", "ci/verify")


def bench_results():
    """bench/bench_results.py: load(path) -> (context, [Result]), BadResults."""
    return _load("bench_results", "bench/bench_results.py")

"""What every command line shares: an argument parser whose errors are one
line and exit 2, and a wrapper that turns bad input into one line and exit 2
and never lets a traceback out (a traceback's exit 1 would read as "a check
failed": for verdict.py, an unhealthy node that Slurm drains)."""
import argparse
import math
import sys

from tdc.errors import InputError, one_line
from tdc.terminal import printable

BAD_INPUT = 2


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) and descriptions shown as written."""

    def __init__(self, prog, doc, **kwargs):
        super().__init__(prog=prog, description=doc,
                         formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)

    def error(self, message):
        raise InputError(f"{message} (see --help)")


def run_main(prog, body, argv=None):
    """Calls body(argv); InputError, OSError and anything unexpected become
    one line '<prog>: <why>' on stderr and exit 2."""
    try:
        status = body(sys.argv[1:] if argv is None else argv)
    except InputError as error:
        print(printable(f"{prog}: {error}"), file=sys.stderr)  # it may quote hostile input
        return BAD_INPUT
    except OSError as error:
        # A copy's error names both files; a full disk's names none (writers
        # that can say which file catch it themselves: safeio).
        where = (f"{error.filename} -> {error.filename2}: " if error.filename2 else
                 f"{error.filename}: " if error.filename else "")
        print(printable(f"{prog}: {where}{error.strerror or one_line(error)}"), file=sys.stderr)
        return BAD_INPUT
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return BAD_INPUT
    except SystemExit as exit_request:  # argparse's --help and version
        return exit_request.code if isinstance(exit_request.code, int) else BAD_INPUT
    except Exception as error:  # noqa: BLE001 - fail closed, one line, never a traceback
        print(printable(f"{prog}: internal error ({type(error).__name__}: {one_line(error)}); "
                        "please report it"), file=sys.stderr)
        return BAD_INPUT
    return status if isinstance(status, int) else 0


def finite(text):
    """argparse type: a finite float ('nan', 'inf' and junk are bad input)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def whole(low, high):
    """argparse type: a decimal whole number in [low, high] ('08' is 8)."""
    def parse(text):
        if not text.isdigit() or not text.isascii():
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        value = int(text, 10)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low}..{high})")
        return value
    return parse

"""tdc.cli: one line and exit 2 for bad flags and for anything unexpected."""
import argparse

import pytest

from tdc import cli
from tdc.errors import InputError


@pytest.mark.parametrize("text, value", [("10", 10), ("010", 10), ("86400", 86400)])
def test_whole_is_decimal(text, value):
    assert cli.whole(10, 86400)(text) == value


@pytest.mark.parametrize("text", ["0", "08", "9", "86401", "-1", "1.5", "", "٣٠"])
def test_whole_out_of_range(text):
    with pytest.raises(argparse.ArgumentTypeError):
        cli.whole(10, 86400)(text)


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "x"])
def test_finite(text):
    with pytest.raises(argparse.ArgumentTypeError):
        cli.finite(text)


def test_run_main_turns_everything_into_one_line(capsys):
    def boom(argv):
        raise KeyError("surprise")
    assert cli.run_main("tool", boom, []) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error" in err and "Traceback" not in err

    def bad(argv):
        raise InputError("line one\nline two")
    assert cli.run_main("tool", bad, []) == 2
    assert capsys.readouterr().err == "tool: line one\n"


def test_an_os_error_names_what_it_names(capsys):
    """A full disk's error carries no file name: no "tool:: ..."; a copy's names both files."""
    def full(argv):
        raise OSError(28, "No space left on device")
    assert cli.run_main("tool", full, []) == 2
    assert capsys.readouterr().err == "tool: No space left on device\n"

    def copy(argv):
        raise OSError(28, "No space left on device", "/a/junit.xml", None, "/b/junit.xml")
    assert cli.run_main("tool", copy, []) == 2
    assert capsys.readouterr().err == "tool: /a/junit.xml -> /b/junit.xml: No space left on device\n"


def test_parser_errors_are_one_line(capsys):
    parser = cli.Parser("tool", "doc")
    parser.add_argument("--n", type=cli.whole(1, 3))
    assert cli.run_main("tool", lambda argv: parser.parse_args(argv) and 0, ["--n", "7"]) == 2
    assert capsys.readouterr().err.strip() == "tool: argument --n: 7 is out of range (1..3) (see --help)"

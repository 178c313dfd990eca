"""The one kind of error every tool reports the same way: bad input or
configuration, one line on stderr, exit status 2 (tdc.cli.run_main)."""


class InputError(Exception):
    """A damaged, hostile, missing or wrong-typed input, or a setting out of
    range. Its message is one line that names the input."""

    def __init__(self, message):
        super().__init__(one_line(message))


def one_line(error):
    """The first non-empty line of an exception or text, never empty."""
    text = str(error).strip()
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return type(error).__name__ if isinstance(error, BaseException) else "(no message)"

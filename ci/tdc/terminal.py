"""Text from a package (or any file TDC did not write) on a terminal.

A package's failure message, product, host or check name can hold a
newline that prints a line of its own ("VERIFIED: ..." before the real
REJECTED), an escape sequence that moves the cursor, erases lines or sets
the window title, a NUL, a bidirectional override, or a lone surrogate that
the terminal's encoding cannot write (a crash). printable() is the one
place every tool turns such text into one plain line: each control, format,
surrogate or unassigned character becomes a visible escape (\\n, \\x1b,
\\u202e, \\udce9), as Python's repr() writes it. A backslash is left as it
is, so escaping twice (a message that quotes a name with repr, printed
through printable) changes nothing more."""
import unicodedata

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Cc control, Cf format (bidi overrides, zero-width), Cs surrogate, Co
# private use, Cn unassigned, Zl/Zp line and paragraph separators.
_ESCAPED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _escape(char):
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text):
    """text (anything; str() of it) as one line a terminal shows as written."""
    text = str(text)
    if text.isprintable():   # the common case, at C speed
        return text
    return "".join(_escape(c) if c in _NAMED or unicodedata.category(c) in _ESCAPED else c for c in text)

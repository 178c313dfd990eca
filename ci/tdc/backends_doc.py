"""docs/backends.md, read as the vendor's map: its '### ' sections, and the
section that names a check (`Suite.Check`, or a glob of them). The summary's
"What to add" cites the section for a root cause no gap (tdc.gaps) names;
selftest.backends_doc.names_the_checks holds the page to the suites.

The page is read from the source tree, or from an installed TDC's
share/doc/tdc; where neither has it, no section is named."""
import fnmatch
import functools
import os
import re

from tdc import ROOT

# `Suite.Check` or `Suite.*`, `Suite.Check/<instance>`: CamelCase on both sides.
NAMED_CHECK = re.compile(r"`([A-Z][A-Za-z0-9]*\.(?:[A-Z][A-Za-z0-9]*|\*)\*?)(?:/[^`]*)?`")
# The source tree's page, then an installed TDC's (<prefix>/share/tdc is ROOT).
PLACES = (os.path.join(ROOT, "docs", "backends.md"),
          os.path.join(os.path.dirname(ROOT), "doc", "tdc", "backends.md"))


def sections(text):
    """{title: body} of each '### ' section."""
    found, title, body = {}, None, []
    for line in text.split("\n"):
        if line.startswith("#"):
            if title is not None:
                found[title] = "\n".join(body)
            title, body = (line[4:].strip(), []) if line.startswith("### ") else (None, [])
        elif title is not None:
            body.append(line)
    if title is not None:
        found[title] = "\n".join(body)
    return found


@functools.lru_cache(maxsize=None)
def _page_sections():
    for path in PLACES:
        try:
            with open(path, encoding="utf-8") as handle:
                return sections(handle.read())
        except (OSError, UnicodeDecodeError):
            continue
    return {}


def section_naming(check, page=None):
    """The title of the first section that names `check` (Suite.Check), or ''."""
    for title, body in (page if page is not None else _page_sections()).items():
        if any(fnmatch.fnmatchcase(check, named) for named in NAMED_CHECK.findall(body)):
            return title
    return ""

"""The one Jinja2 environment both reports use (Debian's python3-jinja2):
templates from templates/, HTML autoescaping on, undefined names an error."""
import os

from tdc import results
from tdc.errors import InputError
from tdc.fleet import outliers, signatures
from tdc.optional import require

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


def check_requirements():
    require("jinja2", "python3-jinja2")


def render(template, **values):
    jinja2 = require("jinja2", "python3-jinja2")
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                                     autoescape=jinja2.select_autoescape(["html", "j2"]),
                                     undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.filters["slug"] = lambda text: "".join(c if c.isalnum() else "-" for c in str(text))
    environment.filters["devices"] = signatures.compact
    environment.filters["times"] = outliers.times
    return environment.get_template(template).render(symbols=results.symbols(), **values)


def write(path, text):
    """Writes the page atomically; a character no UTF-8 can hold (a lone
    surrogate from a package) is written escaped, and a failed write leaves
    no temporary file behind."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException as error:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        if isinstance(error, OSError):  # a full disk carries no file name: say which page
            raise InputError(f"cannot write {path}: {error.strerror or error}") from None
        raise
    return path

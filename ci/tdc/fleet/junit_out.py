"""The merged JUnit file (ci/merge writes junit.xml next to matrix.json).

One <testsuite> per matrix row, named "tdc/<host>/<build>" with hostname set,
so a dashboard keeps rows apart (a second row of the same host and build,
an unverified package, adds " [<package file>]"); one <testcase> per cell, classname
"<host>/<build>/<device>", name the check. A failed cell is a <failure>
(type "root cause" or "dependent", its message the cell's); a skipped cell a
<skipped> with its reason, a waived one a <skipped> whose message starts
"known failure". A row without results is one <testcase name="package">
with an <error>: "no package: TIMEOUT ..." or "unverified: ...". Written a
row at a time; the totals on <testsuites> are filled in at the end."""
import functools
import os
import re
import shutil
from xml.sax.saxutils import quoteattr, escape

from tdc.fleet.matrix import naming as matrix_naming

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@functools.lru_cache(maxsize=1 << 16)  # check names, classnames and messages repeat across a fleet's rows
def _quoted(text):
    return quoteattr(_NOT_XML.sub("?", text))


def _attr(text):
    return _quoted(str(text))


def _text(text):
    return escape(_NOT_XML.sub("?", str(text)))


class Writer:
    @matrix_naming(lambda self: self.body_path)
    def __init__(self, path, name):
        self.path, self.name = path, name
        self.body_path = path + ".body"
        self.body = open(self.body_path, "w", encoding="utf-8")
        self.totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        self.names = set()

    @matrix_naming(lambda self: self.body_path)
    def add(self, row):
        host, build = row["host"], row["build"]
        cases, counts = [], {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "time": 0.0}
        if row["trust"] != "verified":
            why = (row["problems"][0] if row["problems"] else
                   f"{row.get('state') or 'no task state'}"
                   f"{': ' + row['reason'] if row.get('reason') else ''}"
                   f"{'' if row.get('exit_code') is None else ', exit ' + str(row['exit_code'])}")
            message = f"{row['trust']}: {why}"
            cases.append(f'<testcase classname={_attr(host + "/" + build)} name="package" time="0">'
                         f'<error type={_attr(row["trust"])} message={_attr(message)}/></testcase>')
            counts.update(tests=1, errors=1)
        for device, by_check in sorted(row["cells"].items()):
            classname = _attr(f"{host}/{build}/{device}")
            for check, cell in sorted(by_check.items()):
                seconds = cell.get("seconds") or 0
                inner = ""
                if cell["status"] == "failed":
                    kind = "dependent" if cell.get("root_cause") else "root cause"
                    detail = cell["message"] + (f"\nprerequisite: {cell['root_cause']}" if cell.get("root_cause") else "")
                    inner = f'<failure type="{kind}" message={_attr(cell["message"])}>{_text(detail)}</failure>'
                    counts["failures"] += 1
                elif cell["status"] in ("skipped", "known_failure"):
                    inner = f'<skipped message={_attr(cell.get("message") or cell["status"])}/>'
                    counts["skipped"] += 1
                counts["tests"] += 1
                counts["time"] += seconds
                cases.append(f'<testcase classname={classname} name={_attr(check)} time="{seconds}">'
                             f'{inner}</testcase>')
        # A suite name is unique: a second row of a host and build (a package
        # that came second, a forgery) is told apart by its package.
        name = f"tdc/{host}/{build}"
        if name in self.names:
            name += f" [{os.path.basename(row.get('package') or '') or len(self.names)}]"
        self.names.add(name)
        properties = "".join(f'<property name="tdc.{key}" value={_attr(row.get(key) or "")}/>'
                             for key in ("host", "build", "libtorch", "suite_version", "job_id",
                                         "array_task_id", "state", "trust", "signature"))
        self.body.write(f'  <testsuite name={_attr(name)} hostname={_attr(host)} '
                        f'tests="{counts["tests"]}" failures="{counts["failures"]}" '
                        f'errors="{counts["errors"]}" skipped="{counts["skipped"]}" '
                        f'time="{round(counts["time"], 3)}">\n    <properties>{properties}</properties>\n    '
                        + "\n    ".join(cases) + "\n  </testsuite>\n")
        for key in self.totals:
            self.totals[key] += counts[key]

    def close(self):
        self._close_body()
        self._assemble()

    @matrix_naming(lambda self: self.body_path)
    def _close_body(self):
        self.body.close()   # what is still buffered is written now

    @matrix_naming(lambda self: self.path + ".tmp")
    def _assemble(self):
        t = self.totals
        with open(self.path + ".tmp", "w", encoding="utf-8") as out:
            out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name={_attr(self.name)} '
                      f'tests="{t["tests"]}" failures="{t["failures"]}" errors="{t["errors"]}" '
                      f'skipped="{t["skipped"]}" time="{round(t["time"], 3)}">\n')
            with open(self.body_path, encoding="utf-8") as body:
                shutil.copyfileobj(body, out, 1 << 20)
            out.write("</testsuites>\n")
        os.unlink(self.body_path)
        os.replace(self.path + ".tmp", self.path)

    def abandon(self):
        try:
            self.body.close()
        except OSError:
            pass  # what it could not write is being thrown away
        for path in (self.body_path, self.path + ".tmp"):
            if os.path.lexists(path):
                os.unlink(path)

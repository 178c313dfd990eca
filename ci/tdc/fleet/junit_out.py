"""The merged JUnit file (ci/merge writes junit.xml next to matrix.json).

One <testsuite> per matrix row, named "tdc/<host>/<build>" with hostname set,
so a dashboard keeps rows apart (a second row of the same host and build,
an unverified package, adds " [<package file>]"); one <testcase> per cell, classname
"<host>/<build>/<device>", name the check. A failed cell is a <failure>
(type "root cause" or "dependent", its message the cell's); a skipped cell a
<skipped> with its reason, a waived one a <skipped> whose message starts
"known failure". A row without results is one <testcase name="package">
with an <error>: "no package: TIMEOUT ..." or "unverified: ...". Written a
row at a time by tdc.junit_report.Stream (the one JUnit writer: a status
becomes its element there)."""
import os

from tdc import junit_report, results

SUITE_PROPERTIES = ("host", "build", "libtorch", "suite_version", "job_id", "array_task_id", "state",
                    "trust", "signature")


class Writer:
    def __init__(self, path, name):
        self.stream = junit_report.Stream(path, name)
        self.names = set()

    def add(self, row):
        host, build = row["host"], row["build"]
        cases = []
        if row["trust"] != "verified":
            why = (row["problems"][0] if row["problems"] else
                   f"{row.get('state') or 'no task state'}"
                   f"{': ' + row['reason'] if row.get('reason') else ''}"
                   f"{'' if row.get('exit_code') is None else ', exit ' + str(row['exit_code'])}")
            cases.append({"classname": f"{host}/{build}", "name": "package", "seconds": 0,
                          "error": (row["trust"], f"{row['trust']}: {why}")})
        for device, by_check in sorted(row["cells"].items()):
            classname = f"{host}/{build}/{device}"
            for check, cell in sorted(by_check.items()):
                case = {"classname": classname, "name": check, "seconds": cell.get("seconds") or 0,
                        "status": cell["status"], "message": cell.get("message") or cell["status"]}
                if results.junit_status(cell["status"]) == results.FAILED:   # a root cause, or a dependent
                    root_cause = cell.get("root_cause")
                    case.update(kind="dependent" if root_cause else "root cause",
                                detail=cell["message"] + (f"\nprerequisite: {root_cause}" if root_cause else ""))
                cases.append(case)
        # A suite name is unique: a second row of a host and build (a package
        # that came second, a forgery) is told apart by its package.
        name = f"tdc/{host}/{build}"
        if name in self.names:
            name += f" [{os.path.basename(row.get('package') or '') or len(self.names)}]"
        self.names.add(name)
        self.stream.suite(name, host, [(f"tdc.{key}", row.get(key) or "") for key in SUITE_PROPERTIES], cases)

    def close(self):
        self.stream.close()

    def abandon(self):
        self.stream.abandon()

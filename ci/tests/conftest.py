"""Shared helpers for the units of ci/tdc (run by Debian's /usr/bin/python3
with python3-pytest; ctest runs each file as selftest.unit.<file>)."""
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DAMAGED = os.path.join(ROOT, "suites", "selftest", "damaged")


@pytest.fixture
def write(tmp_path):
    """write(name, text_or_bytes) -> path, under a fresh folder."""
    def make(name, content):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)
    return make


@pytest.fixture
def sparse_gigabyte(tmp_path):
    """A 1 GiB file that takes no disk space (a hole)."""
    path = tmp_path / "huge.xml"
    with open(path, "wb") as handle:
        handle.truncate(1 << 30)
    return str(path)


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<testsuite><testcase name="&lol3;"/></testsuite>
"""


def junit_text(*cases):
    """A ctest-shaped JUnit document from (name, status attr, children xml)."""
    body = "".join(f'<testcase name="{n}" classname="{n}" time="0.5" status="{s}">{c}</testcase>'
                   for n, s, c in cases)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="(empty)" tests="{len(cases)}">{body}</testsuite>\n'


def gtest_text(name, properties=None, child=""):
    suite, _, test = name.partition(".")
    props = "".join(f'<property name="{k}" value="{v}"/>' for k, v in (properties or {}).items())
    props = f"<properties>{props}</properties>" if props else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<testsuites><testsuite name="{suite}">'
            f'<testcase name="{test}" status="run" result="completed" classname="{suite}">{props}{child}'
            f'</testcase></testsuite></testsuites>\n')




def context_doc(**changes):
    """A valid context.json document (tdc.context.describe's shape, no build needed)."""
    from tdc import results
    document = {"run_id": "20260101T000000Z-0123abcd", "host": "node1", "devices": {"devices": []},
                "environment": {}, "expect": "", "git": {"commit": "abc", "dirty": False, "dirty_files": []},
                "suite_version": "0.1.0+000000000000", "level": 1, "command_line": "test"}
    document.update(changes)
    return results.stamp(document)


def recorded_verdict(path, outcome, action, fingerprint, devices=(), finished=None, host="n1"):
    """Writes a verdict as a node check records it (ci/health --verdict's
    shape: dated, with a fingerprint); unhealthy fails one check with ACTION's
    class (tdc.fleet.actions)."""
    import json
    from tdc import verdict
    from tdc.fleet import actions
    failure_class = next(name for name, (act, _) in actions.TABLE.items() if act == action)
    failing = [] if outcome == "healthy" else [
        {"check": "Copy.RoundTrip/loopback_0", "device": "loopback:0", "message": f"a {failure_class} failure",
         "dependents": [], "class": failure_class, "action": action}]
    finished = finished or verdict.now_iso()
    document = {"schema_version": "1.0", "verdict": outcome, "action": action, "message": f"{outcome} ({action})",
                "level": 1, "host": host, "run_id": None, "seconds": 1.0, "failing": failing,
                "devices": {d: {"passed": 1} for d in devices},
                "counted": {"own_passed": 1, "own_skipped": 0, "failed": len(failing), "twin_passed": 0,
                            "missing_checks": []},
                "started": finished, "finished": finished, "tdc_version": "0", "fingerprint": fingerprint}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(document, f)
    return path

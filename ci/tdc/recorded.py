"""A recorded verdict, as an adapter may trust it: read `unknown`, never
`healthy`, when it is missing or damaged, older than the maximum age, from a
run that did not finish, or measured on another configuration (its
fingerprint differs from the node's now: tdc.fingerprint).

trusted(path, fingerprint_now, max_age, now=None) -> (verdict dict, age in s or None)
"""
import datetime
import os
import time

from tdc import fingerprint, results
from tdc.errors import InputError


def _seconds(iso):
    try:
        stamp = datetime.datetime.fromisoformat(str(iso))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        return None
    return stamp.timestamp()


def unknown(message, age=None):
    return {"verdict": "unknown", "message": message, "action": "rerun"}, age


def trusted(path, fingerprint_now, max_age, now=None):
    """The verdict at PATH as an adapter may use it, and its age."""
    now = time.time() if now is None else now
    if not os.path.lexists(path):
        return unknown("no verdict yet")
    try:
        document = results.read(path, "verdict")
    except InputError as error:
        return unknown(f"the recorded verdict is unusable: {error}")
    finished = _seconds(document.get("finished"))
    if finished is None:
        return unknown("the recorded verdict has no finish time (an older TDC wrote it)")
    age = round(now - finished)
    if str(document.get("message", "")).startswith("interrupted:"):
        return unknown(f"the last run did not finish: {document['message']}", age)
    if age > max_age:
        return unknown(f"the recorded verdict is {age} s old (more than {max_age} s)", age)
    if age < -60:
        return unknown(f"the recorded verdict is dated {-age} s in the future", age)
    recorded = document.get("fingerprint") or {}
    if recorded.get("digest") != fingerprint_now.get("digest"):
        changed = ", ".join(fingerprint.differences(recorded, fingerprint_now)) or "its digest"
        return unknown(f"the recorded verdict was measured on another configuration ({changed} changed)", age)
    return document, age

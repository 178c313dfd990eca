"""Tonight's matrix against earlier nights' (ci/merge --history DIR).

DIR holds earlier matrices: DIR/*.json or DIR/<anything>/matrix.json (a CI
job keeps one folder per night). The last `window` nights before tonight
are read, a row at a time, keeping only what can differ from "passed": a
cell's status when it is not passed, and for each row the set of cells it
had. A cell is (host, build, device, check); its outcome on a night is
failed, skipped, known_failure, passed, or none (no verified row that night,
or the row had no such cell).

  newly failing   failed tonight, not on the last night (it passed, skipped,
                  or had no result then);
  still failing   failed tonight and on the last night: "failing since" the
                  first night of the run of failures (carried in each failed
                  cell's `since`, so it reaches past the window);
  fixed           failed on the last night, passed tonight;
  flaky           within the window (tonight included) it both passed and
                  failed, and its outcome changed at least twice (one change
                  is a new failure or a fix, not flakiness);
  newly skipped   skipped tonight, ran (passed or failed) on the last night;
  stale host      a host and build with a verified row in the window that has
                  had none for more than `stale_after` nights (tonight
                  included; a row without a package or unverified is none).
With no earlier night (an empty DIR, only tonight's or damaged matrices)
nothing is any of these: compared_with is null.

A file under DIR that cannot be read, is of another major version, names no
real night, is tonight's or a later night's, or is an earlier merge of a
night merged again is skipped and listed with why (History.skipped; ci/merge
prints each): one damaged night is a warning, not a lost matrix. A `since`
that is no real night, or is after its matrix's night, is derived again.
"""
import datetime
import glob
import os
import re
from collections import defaultdict

from tdc import results
from tdc.errors import InputError
from tdc.fleet import matrix
from tdc.terminal import printable

FLAKY_WINDOW = 7
STALE_AFTER = 2
RULES = {
    "newly_failing": "failed tonight, not on the last night (passed, skipped or no result then)",
    "still_failing": "failed tonight and on the last night; since = first night of the run of failures",
    "fixed": "failed on the last night, passed tonight",
    "flaky": "both passed and failed within the last {window} nights (tonight included), "
             "the outcome changing at least twice",
    "newly_skipped": "skipped tonight, passed or failed on the last night",
    "stale_hosts": "no verified row for more than {stale} nights (tonight included)",
}


def matrix_files(directory):
    if not os.path.isdir(directory):
        raise InputError(f"--history {directory}: not a folder")
    return sorted(set(glob.glob(os.path.join(directory, "*.json")) +
                      glob.glob(os.path.join(directory, "*", "matrix.json"))))


class Night:
    """One earlier night, compactly."""

    def __init__(self, name):
        self.name = name
        self.layouts = {}          # (host, build) -> frozenset of (device, check)
        self.cells = {}            # (host, build, device, check) -> (code, since)

    def outcome(self, key):
        row = key[:2]
        if row not in self.layouts:
            return None
        if key in self.cells:
            return self.cells[key][0]
        return "P" if key[2:] in self.layouts[row] else None


def is_night(text):
    """Whether text is a real date written YYYY-MM-DD (2026-13-45 and 0000-00-00 are not)."""
    if not isinstance(text, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


class History:
    """What --history gave: the nights compared (oldest first), the files
    skipped and why, how many older nights the window left out, and the run
    id of every verified row of a night read (a run merged on an earlier
    night is a replay tonight)."""

    def __init__(self):
        self.nights, self.skipped, self.older, self.run_ids = [], [], 0, {}

    def skip(self, path, why):
        self.skipped.append({"path": path, "why": printable(why)})


def load(directory, tonight, window=FLAKY_WINDOW, stale_after=STALE_AFTER):
    """A History of the last max(window, stale_after + 1) nights before
    tonight. A file that cannot be read, is of another major version, names
    no real night, or has a damaged row is skipped with why, never an abort:
    one damaged night must not cost tonight's matrix."""
    found = History()
    headers = []
    for path in matrix_files(directory):
        try:
            header, _ = matrix.read(path)
        except InputError as error:
            found.skip(path, str(error).replace(f"{path}: ", "", 1))
            continue
        night = header.get("night")
        if not is_night(night):
            found.skip(path, f"its night {night!r} is not a date (YYYY-MM-DD)")
        elif night == tonight:
            found.skip(path, f"it is of night {night}, tonight's: a merge is compared with earlier nights "
                             "only (give --night to name tonight)")
        elif night > tonight:
            found.skip(path, f"it is of night {night}, after tonight ({tonight})")
        else:
            headers.append((night, str(header.get("generated_at") or ""), path))
    keep = max(window, stale_after + 1)
    latest = {}
    for night, generated, path in sorted(headers):
        if night in latest:
            found.skip(latest[night], f"a later merge of night {night} counts: {path}")
        latest[night] = path  # two merges of one night: the later one counts
    chosen = sorted(latest)[-keep:]
    found.older = len(latest) - len(chosen)
    shared = {}
    for name in chosen:
        try:
            night, run_ids = _read_night(name, latest[name], found.nights[-1] if found.nights else None, shared)
        except InputError as error:
            found.skip(latest[name], str(error).replace(f"{latest[name]}: ", "", 1))
            continue
        found.nights.append(night)
        for run_id in run_ids:
            found.run_ids.setdefault(run_id, name)
    return found


def _valid_since(since, night):
    """A failure's `since` as an earlier matrix says it, when it is a real
    night not after that matrix's own; else None (derived again)."""
    return since if is_night(since) and since <= night else None


def _read_night(name, path, before, shared):
    night = Night(name)
    run_ids = []
    _, rows = matrix.read(path)
    for row in rows:
        if not isinstance(row, dict) or row.get("trust") != "verified":
            continue
        if isinstance(row.get("run_id"), str) and row["run_id"]:
            run_ids.append(row["run_id"])
        key = (str(row.get("host")), str(row.get("build")))
        cells = row.get("cells") if isinstance(row.get("cells"), dict) else {}
        layout = frozenset((device, check) for device, by_check in cells.items()
                           if isinstance(by_check, dict) for check in by_check)
        night.layouts[key] = shared.setdefault(layout, layout)   # most rows share one layout
        for device, by_check in cells.items():
            for check, cell in (by_check.items() if isinstance(by_check, dict) else ()):
                status = cell.get("status") if isinstance(cell, dict) else None
                if status in results.TABLE and status != results.PASSED:
                    night.cells[key + (device, check)] = (results.letters()[status],
                                                          _valid_since(cell.get("since"), name))
    # A failure's `since`: as the matrix says, else carried from the night before.
    for key, (code, since) in night.cells.items():
        if code == "F" and not since:
            earlier = before.cells.get(key) if before else None
            since = earlier[1] if earlier and earlier[0] == "F" else name
            night.cells[key] = (code, since)
    return night, run_ids


class Comparison:
    """Fed tonight's rows one by one (add), then asked for the report."""

    def __init__(self, nights, tonight, window=FLAKY_WINDOW, stale_after=STALE_AFTER):
        self.nights, self.tonight = nights, tonight
        self.window, self.stale_after = window, stale_after
        self.last = nights[-1] if nights else None
        self.watched = set()       # cells not passed on some earlier night
        for night in nights:
            self.watched.update(night.cells)
        self.tonight_cells = {}    # watched or not-passed cells: key -> code
        self.tonight_rows = set()

    def since(self, key):
        """The night a failure that is failed tonight began."""
        if self.last and self.last.outcome(key) == "F":
            return self.last.cells[key][1]
        return self.tonight

    def add(self, row):
        """Marks each failed cell's `since` in the row (before it is written)."""
        if row.get("trust") != "verified":
            return
        base = (row["host"], row["build"])
        self.tonight_rows.add(base)
        for device, by_check in row["cells"].items():
            for check, cell in by_check.items():
                key = base + (device, check)
                code = results.letters()[cell["status"]]
                if code == "F":
                    cell["since"] = self.since(key)
                if code != "P" or key in self.watched:
                    self.tonight_cells[key] = code

    def report(self):
        found = {name: defaultdict(list) for name in ("newly_failing", "still_failing", "fixed",
                                                      "flaky", "newly_skipped")}
        window = self.nights[-(self.window - 1):] if self.window > 1 else []
        # Without an earlier night nothing is new, fixed or still failing:
        # every failure would read "newly failing" beside "compared: none".
        for key, code in self.tonight_cells.items() if self.last else ():
            last = self._last_ran(key)
            host = f"{key[0]} ({key[1]})"
            if code == "F":
                if last == "F":
                    found["still_failing"][(key[3], key[2], self.since(key))].append(host)
                else:
                    found["newly_failing"][(key[3], key[2], None)].append(host)
            elif code == "P" and self.last and self.last.outcome(key) == "F":
                found["fixed"][(key[3], key[2], None)].append(host)
            elif code == "S" and self.last and self.last.outcome(key) in ("P", "F"):
                found["newly_skipped"][(key[3], key[2], None)].append(host)
            outcomes = "".join(o for o in (n.outcome(key) for n in window) if o in ("P", "F"))
            outcomes += code if code in ("P", "F") else ""
            changes = sum(1 for a, b in zip(outcomes, outcomes[1:]) if a != b)
            if "P" in outcomes and "F" in outcomes and changes >= 2:
                found["flaky"][(key[3], key[2], outcomes)].append(host)
        report = {name: _listed(groups, name) for name, groups in found.items()}
        report["stale_hosts"] = self._stale()
        report["nights"] = [n.name for n in self.nights]
        report["compared_with"] = self.last.name if self.last else None
        report["rules"] = {k: v.format(window=self.window, stale=self.stale_after) for k, v in RULES.items()}
        report["flaky_window"] = self.window
        report["stale_after"] = self.stale_after
        return report

    def _last_ran(self, key):
        return self.last.outcome(key) if self.last else None

    def _stale(self):
        last_seen = {}
        for night in self.nights:
            for row in night.layouts:
                last_seen[row] = night.name
        names = [n.name for n in self.nights] + [self.tonight]
        stale = []
        for row, seen in sorted(last_seen.items()):
            if row in self.tonight_rows:
                continue
            missing = len(names) - 1 - names.index(seen)
            if missing > self.stale_after:
                stale.append({"host": row[0], "build": row[1], "last_seen": seen, "nights_missing": missing})
        return stale


def _listed(groups, name):
    items = []
    for (check, device, extra), hosts in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0][:2])):
        item = {"check": check, "device": device, "count": len(hosts), "hosts": sorted(hosts)}
        if name == "still_failing":
            item["since"] = extra
        if name == "flaky":
            item["outcomes"] = extra
        items.append(item)
    return items

#!/usr/bin/env python3
"""One readiness verdict from a run's summary.json, in node-problem-detector's
convention: exit 0 healthy, 1 unhealthy, 2 unknown.

  verdict.py --summary summary.json [--level N] [--why-unknown TEXT] [--out FILE]
Prints one JSON object (and writes it to --out):
  {"verdict": "healthy" | "unhealthy" | "unknown", "message": one line,
   "failing": [{"check", "device", "message", "dependents"}], ...}
A run that checked nothing, or whose summary is missing or damaged, is
unknown, never healthy."""
import argparse
import json
import socket
import sys

EXIT = {"healthy": 0, "unhealthy": 1, "unknown": 2}


def verdict_of(summary, why_unknown):
    if why_unknown:
        return "unknown", why_unknown, []
    tests = summary.get("tests", [])
    by_name = {t["name"]: t for t in tests}
    failing = []
    for group in summary.get("failures_by_root_cause", []):
        test = by_name.get(group["root_cause"], {})
        failing.append({"check": group["root_cause"], "device": test.get("device", "?"),
                        "message": (test.get("message") or group.get("message") or "")[:200],
                        "dependents": group.get("dependents", [])})
    passed = sum(1 for t in tests if t["status"] == "passed")
    if failing:
        devices = sorted({f["device"] for f in failing})
        return "unhealthy", (f"{len(failing)} failing check(s) on {', '.join(devices)}: "
                             f"{failing[0]['check']}"), failing
    if passed == 0:
        return "unknown", "no check passed: nothing was checked", []
    return "healthy", f"{passed} checks passed on {len(summary.get('devices', {}))} device group(s)", []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--summary", required=True)
    parser.add_argument("--level", type=int, default=1)
    parser.add_argument("--why-unknown", default="")
    parser.add_argument("--out")
    args = parser.parse_args()
    summary, why = {}, args.why_unknown
    if not why:
        try:
            with open(args.summary) as f:
                summary = json.load(f)
        except (OSError, ValueError) as error:
            why = f"no usable summary ({error})"
    verdict, message, failing = verdict_of(summary, why)
    result = {"verdict": verdict, "message": message, "level": args.level,
              "host": summary.get("context", {}).get("host") or socket.gethostname(),
              "seconds": summary.get("wall_seconds"), "failing": failing,
              "devices": summary.get("devices", {})}
    text = json.dumps(result)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return EXIT[verdict]


if __name__ == "__main__":
    sys.exit(main())

"""build-profile: where a build's time went, from ninja's own log
(<build>/.ninja_log): CPU-seconds and steps per source folder, the
precompiled headers and unity batches counted with their folder, links and
other steps apart, and the build's wall time. With --before, a second build's
table beside it (a clean build before and after a change, docs/measurements.md).

  tdc build-profile BUILD [--before OTHER_BUILD] [--depth 2] [--invocation last|first|all]

One ninja invocation is counted, the last by default (a clean build is one;
--invocation=first is a clean build that rebuilds came after).
Exit status: 0 printed, 2 no readable .ninja_log (one line)."""
import os
import re
import sys

from tdc import cli
from tdc.errors import InputError

LINKS = "(links and other steps)"


class Step:
    __slots__ = ("start_ms", "end_ms", "output")

    def __init__(self, start_ms, end_ms, output):
        self.start_ms, self.end_ms, self.output = start_ms, end_ms, output


def read_log(build_dir, invocation="last"):
    """The steps of the build's last (first, all) ninja invocation."""
    path = os.path.join(build_dir, ".ninja_log")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None
    if not lines or not lines[0].startswith("# ninja log v"):
        raise InputError(f"{path}: not a ninja log (no '# ninja log v' header)")
    sessions, previous_end = [[]], None
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) < 4 or not fields[0].isdigit() or not fields[1].isdigit():
            raise InputError(f"{path}:{number}: not a ninja log line")
        step = Step(int(fields[0]), int(fields[1]), fields[3])
        # Ninja appends steps as they finish, with times from its own start:
        # an end time earlier than the last one is a new invocation.
        if previous_end is not None and step.end_ms < previous_end:
            sessions.append([])
        sessions[-1].append(step)
        previous_end = step.end_ms
    chosen = {"last": sessions[-1], "first": sessions[0],
              "all": [step for session in sessions for step in session]}[invocation]
    # A step logged twice (one output of several, restat) counts once: its last record.
    latest = {}
    for step in chosen:
        latest[step.output] = step
    if not latest:
        raise InputError(f"{path}: no build steps recorded")
    return list(latest.values()), len(sessions)


_OBJECT = re.compile(r"^(?P<dir>.*?)/?CMakeFiles/[^/]+\.dir/(?P<rel>.+)$")


_INCLUDE = re.compile(r'^#include "(?P<path>[^"]+)"', re.M)


def unity_sources(build_dir, output):
    """The sources a unity batch includes (CMake writes them as absolute
    paths into <object without .o>), or [] where the file is gone."""
    try:
        with open(os.path.join(build_dir, output[:-2]), encoding="utf-8", errors="replace") as handle:
            return _INCLUDE.findall(handle.read())
    except OSError:
        return []


def source_dir(build_dir):
    """The tree the build was configured from (CMakeCache.txt), or None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def folder_of(output, depth, build_dir=None, source=None):
    """The source folder a step belongs to, `depth` components deep: a
    unity batch counts with the folder its sources share."""
    match = _OBJECT.match(output)
    if not match:
        return LINKS
    rel = match.group("rel")
    if rel.startswith("Unity/") and build_dir and source:
        included = [os.path.relpath(path, source) for path in unity_sources(build_dir, output)]
        if included and not any(path.startswith("..") for path in included):
            shared = os.path.commonpath([os.path.dirname(path) for path in included])
            return "/".join(shared.split("/")[:depth]) or "(top level)"
    if "cmake_pch" in rel or rel.startswith("Unity/"):
        parts = []
    else:
        # Sources outside the target's folder appear as __/__/path/to/file.
        parts = [part for part in os.path.dirname(rel).split("/") if part not in ("", "__")]
    base = [part for part in match.group("dir").split("/") if part]
    folder = "/".join((base + parts)[:depth])
    return folder or "(top level)"


def profile(build_dir, depth=2, invocation="last"):
    """{folder: [steps, cpu seconds]}, wall seconds, sessions seen."""
    steps, sessions = read_log(build_dir, invocation)
    source = source_dir(build_dir)
    table = {}
    for step in steps:
        entry = table.setdefault(folder_of(step.output, depth, build_dir, source), [0, 0.0])
        entry[0] += 1
        entry[1] += (step.end_ms - step.start_ms) / 1000.0
    wall = (max(s.end_ms for s in steps) - min(s.start_ms for s in steps)) / 1000.0
    return table, wall, sessions


def render(after, before=None):
    """A Markdown table, largest first (by the 'after' build)."""
    table, wall, _ = after
    rows = sorted(table.items(), key=lambda item: (-item[1][1], item[0]))
    if before is not None:
        old, old_wall, _ = before
        for folder in old:
            if folder not in table:
                rows.append((folder, [0, 0.0]))
        lines = ["| folder | steps before | CPU-s before | steps | CPU-s | ratio |", "|---|---:|---:|---:|---:|---:|"]
        for folder, (steps, cpu) in rows:
            was = old.get(folder, [0, 0.0])
            ratio = f"{cpu / was[1]:.2f}x" if was[1] else "new"
            lines.append(f"| {folder} | {was[0]} | {was[1]:.1f} | {steps} | {cpu:.1f} | {ratio} |")
        total, old_total = sum(v[1] for v in table.values()), sum(v[1] for v in old.values())
        lines.append(f"| **total** | {sum(v[0] for v in old.values())} | {old_total:.1f} | "
                     f"{sum(v[0] for v in table.values())} | {total:.1f} | {total / old_total:.2f}x |")
        lines.append(f"| **wall** | | {old_wall:.1f} | | {wall:.1f} | {wall / old_wall:.2f}x |")
        return "\n".join(lines)
    total = sum(v[1] for v in table.values()) or 1.0
    lines = ["| folder | steps | CPU-s | share |", "|---|---:|---:|---:|"]
    for folder, (steps, cpu) in rows:
        lines.append(f"| {folder} | {steps} | {cpu:.1f} | {100 * cpu / total:.0f} % |")
    lines.append(f"| **total** | {sum(v[0] for v in table.values())} | {total:.1f} | 100 % |")
    lines.append(f"| **wall** | | {wall:.1f} | |")
    return "\n".join(lines)


def body(argv):
    parser = cli.Parser("build-profile", __doc__)
    parser.add_argument("build_dir", metavar="BUILD")
    parser.add_argument("--before", metavar="OTHER_BUILD", help="a second build, shown beside it")
    parser.add_argument("--depth", type=cli.whole(1, 8), default=2, help="folder components kept (default 2)")
    parser.add_argument("--invocation", choices=("last", "first", "all"), default="last",
                        help="which ninja invocation of each log to count (default: the last)")
    args = parser.parse_args(argv)
    after = profile(args.build_dir, args.depth, args.invocation)
    before = profile(args.before, args.depth, args.invocation) if args.before else None
    if after[2] > 1 and args.invocation != "all":
        print(f"({args.build_dir}: the {args.invocation} of {after[2]} ninja invocations)")
    print(render(after, before))
    return 0


def main(argv=None):
    return cli.run_main("build-profile", body, argv)


if __name__ == "__main__":
    sys.exit(main())

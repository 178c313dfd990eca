"""What the tools ask ctest: which entries a selection holds (with their
labels), and how each entry ended according to ctest's own log (a timeout or
a crash is said there, not in the JUnit file)."""
import json
import re
import shutil
import subprocess

from tdc.errors import InputError, one_line

# "12/17 Test #30: loopback:Placement.RoundTrip16MiBIsExact/loopback_1 ....***Timeout   8.00 sec"
_RESULT = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (?P<name>\S+) \.*\s*(?P<outcome>.*?)\s+"
                     r"(?P<seconds>[0-9.]+) sec\s*$")


def program():
    found = shutil.which("ctest")
    if not found:
        raise InputError("ctest is not on PATH (install CMake)")
    return found


def listed(build_dir, selection=(), env=None, timeout=900, said=None):
    """[(name, [labels])] of the entries `ctest <selection>` would run, in
    ctest's order. Listing runs the suites' discovery, as running does; what
    the discovery said on stderr (a configuration error's one line per
    suite) is appended to `said` when given."""
    command = [program(), "--test-dir", build_dir, "--show-only=json-v1", *selection]
    try:
        run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise InputError(f"ctest --show-only did not answer within {timeout} s in {build_dir}")
    if run.returncode != 0:
        said = [l for l in (run.stderr or run.stdout).splitlines() if l.strip()]
        raise InputError(f"ctest --show-only failed in {build_dir}: {said[-1] if said else run.returncode}")
    if said is not None:
        said.extend(line for line in run.stderr.splitlines() if line.strip())
    try:
        tests = json.loads(run.stdout).get("tests", [])
    except (ValueError, AttributeError) as error:
        raise InputError(f"ctest --show-only printed no test list ({one_line(error)})")
    entries = []
    for test in tests:
        labels = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                labels = list(prop.get("value") or [])
        entries.append((test["name"], labels))
    return entries


def outcomes(log_text):
    """{name: (outcome, seconds)} from ctest's console log, e.g.
    ("Timeout", 8.0), ("Failed", 0.3), ("Exception: SegFault", 0.2), ("Passed", 0.3)."""
    found = {}
    for line in log_text.splitlines():
        match = _RESULT.match(line)
        if match:
            outcome = match.group("outcome").replace("*", "").strip()
            found[match.group("name")] = (outcome, float(match.group("seconds")))
    return found

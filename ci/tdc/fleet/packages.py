"""One host's package, opened for merging: ci/verify's checks called as
functions, its problems split into two kinds, and what the matrix needs.

  trust problems          the package cannot be taken as the host's results:
                          a file that does not match its MANIFEST, an extra or
                          unknown file, no STATEMENT, damaged JSON or XML, JUnit
                          and summary disagreeing, another suite version, and
                          (with --allowed-signers) no signature, a bad one, or
                          a signer not allowed for the host the package claims.
                          Its results are not merged: the row reads unverified.
  qualification problems  an authentic package whose run does not qualify
                          (a failed check, a level below the claim, a waiver
                          without a tracker, a dirty tree, a failed gate): the
                          matrix shows its results, the row says it would not
                          pass ci/verify and why.
"""
import os
import tarfile
import tempfile
from dataclasses import dataclass, field

from tdc.fleet import signing, upstream

# ci/verify's messages that are about what a package is, not what its run did.
_TRUST_PREFIXES = ("MANIFEST", "removed file:", "edited file:", "extra file:", "unknown file:",
                   "STATEMENT", "context.json is missing", "summary.json is missing",
                   "waivers.json is missing", "junit.xml is missing", "junit.xml and summary.json disagree",
                   "suite version", "this verifier has no")


@dataclass
class Package:
    path: str
    host: str = ""
    context: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    statement: dict = field(default_factory=dict)
    benchmarks: dict = field(default_factory=dict)  # series -> medians (_benchmarks)
    trust_problems: list = field(default_factory=list)
    qualification_problems: list = field(default_factory=list)
    signature: str = ""                              # the signature verdict's line, or why not checked

    @property
    def trusted(self):
        return not self.trust_problems


def _is_trust_problem(problem):
    return problem.startswith(_TRUST_PREFIXES)


def open_package(path, allowed_signers=None):
    """A Package; never raises for a damaged package (that is a trust problem)."""
    package = Package(path=path)
    verify = upstream.verifier()
    with tempfile.TemporaryDirectory(prefix="tdc-merge-") as tmp:
        try:
            stage = verify.extract(path, tmp)
        except (OSError, tarfile.TarError, ValueError, EOFError) as error:
            package.trust_problems.append(f"not a readable package ({upstream.one_line(error)})")
            return package
        problems = []
        verify.check_manifest(stage, problems)
        # Until ci/verify knows MANIFEST.sig, it calls the signature an extra,
        # unknown file; the signature has its own check below.
        problems = [p for p in problems if signing.SIGNATURE not in p.split(":", 1)[-1].split()[:1]]
        package.statement = verify.read_statement(stage, problems)
        package.context = _object(verify.load_json(stage, "context.json", problems))
        package.summary = _object(verify.load_json(stage, "summary.json", problems))
        package.host = str(package.context.get("host") or "")
        level = None
        if package.statement.get("level") and package.context:
            try:
                level = verify.check_context(package.context, package.statement, problems)
            except Exception as error:  # noqa: BLE001 - a hostile context.json is a trust problem
                problems.append(f"context.json is missing or damaged ({upstream.one_line(error)})")
        if level and package.summary:
            try:
                verify.check_results(stage, level, package.context, package.summary, problems)
            except Exception as error:  # noqa: BLE001
                problems.append(f"summary.json is missing or damaged ({upstream.one_line(error)})")
            verify.check_bench_gate(stage, level, problems)
        for problem in dict.fromkeys(problems):
            (package.trust_problems if _is_trust_problem(problem)
             else package.qualification_problems).append(problem)
        _check_signature(package, stage, allowed_signers)
        package.benchmarks = _benchmarks(stage)
    return package


def _object(value):
    return value if isinstance(value, dict) else {}


def _check_signature(package, stage, allowed_signers):
    if not allowed_signers:
        package.signature = "not checked (no --allowed-signers)"
        return
    with open(os.path.join(stage, upstream.package_format().MANIFEST), "rb") as f:
        manifest = f.read()
    sig_path = os.path.join(stage, signing.SIGNATURE)
    signature = open(sig_path, "rb").read() if os.path.isfile(sig_path) else None
    verdict = signing.verify(manifest, signature, allowed_signers, package.host)
    package.signature = verdict.reason
    if not verdict.ok:
        package.trust_problems.append(verdict.reason)


def _benchmarks(stage):
    """{series: medians} from the Google Benchmark files in bench/ (others have no series).
    A series is the benchmark's name less "/manual_time"
    ("transfer/h2d/cuda:3/268435456"); its value: median seconds per
    iteration, bytes per second (transfers), CV, or the error it reported."""
    reader = upstream.bench_results()
    series = {}
    bench = os.path.join(stage, "bench")
    if not os.path.isdir(bench):
        return series
    for name in sorted(os.listdir(bench)):
        path = os.path.join(bench, name)
        if not name.endswith(".json"):
            continue
        try:
            _, results = reader.load(path)
        except reader.BadResults:
            continue  # listed in MANIFEST, so authentic; just not benchmark output we can read
        for result in results:
            key = result.run_name.replace("/manual_time", "")
            entry = {"seconds": result.seconds, "bytes_per_second": result.bytes_per_second,
                     "cv": result.cv}
            if result.error:
                entry["error"] = upstream.one_line(result.error)[:200]
            series.setdefault(key, entry)
    return series


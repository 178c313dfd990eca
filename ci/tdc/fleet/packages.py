"""One host's package, opened for merging: ci/verify's checks (tdc.verify.
check_stage, with the signature check when allowed signers are given), its
problems split into two kinds, and what the matrix needs from it.

  trust problems          the package cannot be taken as the host's results:
                          not a readable package; a file that does not match
                          its MANIFEST, an extra or unknown file; a damaged
                          STATEMENT, context, summary, waivers, JUnit or
                          GoogleTest XML; JUnit and summary disagreeing; files
                          of different runs; another suite version; a host
                          name that is no host name (a NUL, a control
                          character); and (with --allowed-signers) no
                          signature, a bad one, or a signer not allowed for
                          the host the package claims, the Slurm node it
                          claims, or the node its task ran on.
                          Its results are not merged: the row reads unverified.
  qualification problems  an authentic package whose run does not qualify:
                          a failed or missing check, a level below the claim,
                          a waiver without a tracker, a dirty tree, nothing
                          checked on an expected device, a failed gate. The
                          matrix shows its results; the row lists these.
"""
import os
import tempfile
from dataclasses import dataclass, field

from tdc import packaging, safeio, verify
from tdc.bench import results as bench_results
from tdc.errors import InputError
from tdc.terminal import printable


# tdc.verify's messages about what a run did, not about what the package is.
QUALIFICATION = ("dirty tree:", "claimed level", "level 3 without TDC_EXPECT", "nothing was checked",
                 "missing check:", "failed check:", "waiver without a tracker:", "expected device",
                 "check ", "level 3 needs bench/gate.json", "level 3 benchmark gate")


@dataclass
class Package:
    path: str
    host: str = ""
    context: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    benchmarks: dict = field(default_factory=dict)  # series -> medians (_benchmarks)
    trust_problems: list = field(default_factory=list)
    qualification_problems: list = field(default_factory=list)
    signature: str = ""                              # the signature's verdict, or why not checked
    run_id: str = ""                                 # context.json's, when readable


def is_qualification_problem(problem):
    return problem.startswith(QUALIFICATION)


def scratch():
    """Where packages are unpacked: $TDC_MERGE_SCRATCH, else /dev/shm when it
    is a writable folder (memory: a package's hundreds of small files cost
    milliseconds each on some disks), else the temporary folder."""
    for folder in (os.environ.get("TDC_MERGE_SCRATCH"), "/dev/shm"):
        if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
            return folder
    return None


def open_package(path, allowed_signers=None, filed_under=None):
    """A Package; a package that cannot be read is a trust problem, not an error.
    filed_under: the host its row is filed under (the task's node), which the
    signer must be allowed for too (tdc.verify.check_signature)."""
    package = Package(path=path)
    with tempfile.TemporaryDirectory(prefix="tdc-merge-", dir=scratch()) as tmp:
        digests = {}
        try:
            stage = packaging.extract(path, tmp, digests, keep=_read_later)
        except InputError as error:
            package.trust_problems.append(f"not a readable package: it {error}")
            return package
        problems = []
        _, _, summary, context, _ = verify.check_stage(stage, problems, allowed_signers, digests,
                                                       filed_under)
        package.context, package.summary = context or {}, summary or {}
        # A host that is no host name (a NUL, an escape sequence, a lone
        # surrogate) is a trust problem (check_stage); the row shows it escaped.
        package.host = printable(str(package.context.get("host") or ""))
        package.run_id = str(package.context.get("run_id") or "")
        for problem in dict.fromkeys(problems):
            (package.qualification_problems if is_qualification_problem(problem)
             else package.trust_problems).append(problem)
        package.signature = _signature_line(problems, allowed_signers, package.context, filed_under)
        if not package.trust_problems:
            package.benchmarks = _benchmarks(stage, digests)
    if package.benchmarks is None:  # no digest of its series: read from the files, of the package verified
        package.benchmarks = {}
        with tempfile.TemporaryDirectory(prefix="tdc-merge-", dir=scratch()) as tmp:
            again = {}
            try:
                stage = packaging.extract(path, tmp, again)
            except InputError as error:
                again = {"": str(error)}
            if again != digests:
                package.trust_problems.append("the package changed while it was merged: read again, its "
                                              "files are not the ones verified")
            else:
                package.benchmarks = _benchmarks_of_files(stage)
    return package


def _read_later(path):
    """The files a merge reads after verifying (the rest are checked against
    the MANIFEST as they stream by, never written): all but the benchmark
    output, of which only the digest of its series and the gate's verdict."""
    return not path.startswith("bench/") or path in (f"bench/{bench_results.MEDIANS}", "bench/gate.json")


def _signature_line(problems, allowed_signers, context, filed_under):
    if not allowed_signers:
        return "not checked (no --allowed-signers)"
    for problem in problems:
        if problem.startswith(verify.SIGNATURE_PROBLEMS):
            return problem
    names = [name for name, _ in verify.signed_names(context, filed_under)]
    return f"signed by a key allowed for {', '.join(names)}"


def _benchmarks(stage, digests):
    """{series: medians} of the package's benchmarks from the digest
    ci/package wrote (bench/medians.json, under the MANIFEST like every
    file); {} for a package without benchmarks; None when there is no
    readable digest (a package made before it): the series are then read
    from the Google Benchmark files themselves (_benchmarks_of_files)."""
    if not any(path.startswith("bench/") for path in digests):
        return {}
    digest = os.path.join(stage, "bench", bench_results.MEDIANS)
    if os.path.isfile(digest):
        try:
            series = safeio.load_json(digest, "benchmark medians")
        except InputError:
            series = None
        if isinstance(series, dict):
            return series
    return None


def _benchmarks_of_files(stage):
    reader = bench_results
    bench = os.path.join(stage, "bench")
    if not os.path.isdir(bench):
        return {}
    return reader.medians(sorted(os.path.join(bench, n) for n in os.listdir(bench)
                                 if n.endswith(".json") and n != reader.MEDIANS))

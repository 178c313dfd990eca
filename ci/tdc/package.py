"""package: turns a results folder (ci/conformance, ci/health --out) into
tdc-<host>-torch<build>-level<N>-<run time>.tar.gz: JUnit, summary.json, every GoogleTest XML
file of the run's gtest/ folder (recursively), benchmark JSON and gate
verdicts, context.json, the waivers applied (with file and line), a
STATEMENT from the flags and a MANIFEST of sha256 sums.

  ci/package RESULTS_DIR --product=TEXT --submitter=TEXT [--level=N] [--out=DIR]
                         [--gtest-dir=DIR] [--compatibility=TEXT] [--sign-key=KEY]
--sign-key signs the MANIFEST with an OpenSSH key into MANIFEST.sig
(ci/verify --allowed-signers, ci/merge --allowed-signers check it).

The name: the host, the LibTorch build as context.json records it
(devices.libtorch_version, "2.13.0+cpu" -> torch2.13.0_cpu), the level
claimed and the run's UTC time (from its run id), so that packages of two
builds, two levels or two runs gathered into one folder never share a name;
one run packaged twice does, and the second is refused (nothing is
overwritten). --out defaults to build/packages/ of the checkout these tools
belong to (ignored by git, so a package never dirties the tree that makes
the next run: ci/verify refuses a dirty one); an installed TDC, which has
no checkout, writes to the current folder.

Refused with one line (exit 2): a results folder whose files are damaged or
of the wrong type, a symbolic link or a file name that is not UTF-8 among
them, a --level above the one the run recorded, an empty --product or
--submitter, a value with a newline or control character, a --gtest-dir
that does not exist, an --out that is a file or cannot be written, a
package of that name already there; a JUnit or GoogleTest XML file
ci/verify would refuse (not well-formed: a control character, a DTD), so no
package is made that cannot verify; a disk that fills up, naming the file.
Exit status 0 (prints the package path), 2 bad input."""
import datetime
import glob
import os
import re
import tarfile
import tempfile

from tdc import ROOT, cli, gtest, junit, packaging, results, safeio, source
from tdc.bench import results as bench_results
from tdc.errors import InputError
from tdc.fleet import signing

BENCH_FILES = re.compile(r"\.(json|txt|log|svg)$")


def applied_waivers(summary):
    """Every known failure of the run with the waiver line it came from."""
    waivers = []
    for test in summary["tests"]:
        if test["status"] != results.KNOWN_FAILURE:
            continue
        match = packaging.KNOWN_FAILURE.match(test["message"])
        waivers.append({"test": test["name"], "device": test["device"],
                        "origin": match.group("origin") if match else None,
                        "category": match.group("category") if match else None,
                        "tracker": match.group("tracker") if match else None,
                        "message": test["message"]})
    return {"waivers": waivers}


def utf8_name(folder, name):
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(f"{folder}: a file name is not UTF-8: {os.fsencode(name)!r}")


def refuse_link(path):
    if os.path.islink(path):
        raise InputError(f"{path} is a symbolic link: refused (a package holds the run's own files)")


def copy_file(source, target):
    refuse_link(source)
    if not os.path.isfile(source):
        raise InputError(f"{source} is not a file")
    safeio.copy_file(source, target)


def collect(results_dir, gtest_dir, stage):
    for name in ("junit.xml", "ctest-junit.xml", "summary.json", "context.json"):
        path = os.path.join(results_dir, name)
        if not os.path.lexists(path):
            raise InputError(f"{results_dir} has no {name}: not a results folder")
        copy_file(path, os.path.join(stage, name))
    if gtest_dir is not None and not os.path.isdir(gtest_dir):
        raise InputError(f"--gtest-dir={gtest_dir} does not exist")
    gtest_dir = gtest_dir or os.path.join(results_dir, "gtest")
    for name in ("junit.xml", "ctest-junit.xml"):  # as ci/verify will read them (links refused above)
        junit.read(os.path.join(results_dir, name))
    if os.path.isdir(gtest_dir):
        refuse_link(gtest_dir)
        for relative in gtest.xml_files(gtest_dir):
            target = os.path.join(stage, "gtest", relative)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            copy_file(os.path.join(gtest_dir, relative), target)
        gtest.read_dir(gtest_dir)  # as ci/verify will read them, once no file is a link
    bench = os.path.join(results_dir, "bench")
    if os.path.isdir(bench):
        refuse_link(bench)
        os.makedirs(os.path.join(stage, "bench"))
        for name in sorted(os.listdir(bench)):
            path = os.path.join(bench, name)
            utf8_name(bench, name)
            if name != bench_results.MEDIANS and BENCH_FILES.search(name) and \
                    (os.path.isfile(path) or os.path.islink(path)):
                copy_file(path, os.path.join(stage, "bench", name))
        copied = sorted(glob.glob(os.path.join(stage, "bench", "*.json")))
        safeio.write_json(os.path.join(stage, "bench", bench_results.MEDIANS),
                          bench_results.medians(copied), "benchmark medians")


def token(text, fallback):
    """A filename-safe piece of a package name: letters, digits and dots;
    runs of anything else become one "_" ("-" separates the name's parts)."""
    return re.sub(r"[^A-Za-z0-9.]+", "_", str(text or "")).strip("_") or fallback


def package_name(context, level):
    """tdc-<host>-torch<build>-level<N>-<run time> (the module's doc says why)."""
    host = re.sub(r"[^A-Za-z0-9.-]", "_", context["host"] or "unknown-host")
    devices = context.get("devices") if isinstance(context.get("devices"), dict) else {}
    build = token(devices.get("libtorch_version"), "unknown")
    when = token(str(context["run_id"]).split("-", 1)[0], "unknown")
    return f"tdc-{host}-torch{build}-level{level}-{when}"


def default_out():
    return os.path.join(ROOT, "build", "packages") if source.is_checkout(ROOT) else "."


def refuse_existing(path):
    if os.path.lexists(path):
        raise InputError(f"{path} exists: refused, nothing overwritten (this run is packaged "
                         "already; move that package away or name another --out)")


def place(partial, path):
    """Moves the finished package to path without replacing one that
    appeared meanwhile (a link, not a rename, is what fails on an existing name)."""
    try:
        os.link(partial, path)
    except FileExistsError:
        refuse_existing(path)
    except OSError:  # another file system, or one without hard links: an exclusive copy
        if os.path.lexists(path):
            refuse_existing(path)
        safeio.copy_file(partial, path, "the package")  # all or nothing: a partial one would read as damaged
    return path


def parser():
    p = cli.Parser("package", __doc__)
    p.add_argument("results", help="a results folder")
    p.add_argument("--product", required=True, help="what was qualified: product, driver (one line)")
    p.add_argument("--submitter", required=True, help="who submits the package (one line)")
    p.add_argument("--level", type=cli.whole(1, 3),
                   help="the level claimed (default: the run's, from context.json; never above it)")
    p.add_argument("--out", help="folder to write the package into (default: build/packages/ of "
                                 "this checkout; an installed TDC's: the current folder)")
    p.add_argument("--gtest-dir", help="the run's GoogleTest XML folder (default RESULTS/gtest)")
    p.add_argument("--compatibility", default="",
                   help="suite versions this package states compatibility with (one line)")
    p.add_argument("--sign-key", help="an OpenSSH private key (the lab's or the node's) to sign the "
                                      "MANIFEST with: MANIFEST.sig (tdc.fleet.signing)")
    return p


def run(argv):
    args = parser().parse_args(argv)
    if not os.path.isdir(args.results):
        raise InputError(f"{args.results} is not a folder")
    context = results.read(os.path.join(args.results, "context.json"), "context")
    summary = results.read(os.path.join(args.results, "summary.json"), "summary")
    ran = context["level"]
    level = args.level or ran
    if level is None:
        raise InputError("no level: pass --level=1|2|3 (context.json records none)")
    if ran is None or level > ran:
        raise InputError(f"--level={level} but the run was level {ran}: a package cannot claim more")
    if summary["run_id"] != context["run_id"]:
        raise InputError(f"summary.json (run {summary['run_id']}) and context.json (run "
                         f"{context['run_id']}) are from different runs")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
    statement = packaging.statement_text({
        "product": args.product, "submitter": args.submitter, "level": level,
        "suite_version": context["suite_version"], "run_id": context["run_id"],
        "compatibility": args.compatibility, "date": date})
    name = package_name(context, level)
    out = args.out or default_out()
    safeio.ensure_writable_folder(out, "--out folder")
    path = os.path.abspath(os.path.join(out, name + ".tar.gz"))
    refuse_existing(path)
    with tempfile.TemporaryDirectory() as tmp:
        stage = os.path.join(tmp, name)
        os.makedirs(stage)
        collect(args.results, args.gtest_dir, stage)
        results.write(os.path.join(stage, "waivers.json"), applied_waivers(summary), "waivers")
        safeio.write_text(os.path.join(stage, packaging.STATEMENT), statement, "STATEMENT")
        safeio.write_text(os.path.join(stage, packaging.MANIFEST),
                          "".join(packaging.manifest_lines(stage)), "MANIFEST")
        if args.sign_key:
            signing.sign(os.path.join(stage, packaging.MANIFEST), args.sign_key)
        partial = os.path.join(tmp, name + ".tar.gz")
        try:
            with tarfile.open(partial, "w:gz", format=tarfile.PAX_FORMAT) as tar:
                tar.add(stage, arcname=name)
        except OSError as error:  # a full disk: say which file, not only "No space left on device"
            raise InputError(f"cannot write the package {partial}: {error.strerror or error}")
        place(partial, path)
    print(path)
    return 0


def main(argv=None):
    return cli.run_main("package", run, argv)

#!/usr/bin/env python3
"""The README's package-then-verify sequence, twice in one tree (issue 35):
in a clean copy of this tree (a git checkout of its own, so that the test
does not depend on this tree's state), a level-1 run of this build, with
the loopback loaded as a vendor would load theirs; ci/package with its
defaults; ci/verify; then all of it again. Both packages must verify, and
both must be there: the first package must not make the second run's tree
dirty (it goes to build/packages/, which git ignores).

Then: ci/package refuses, with one line and exit 2, to overwrite a package
(the same run packaged again), keeping the first; the results of two builds
packaged into one folder are two packages (the second build's results are
the first's with context.json naming another LibTorch build: one build is
all a self-test has).

The negatives: a package written where ci/package used to write it, the
tree's root, makes the next run warn at its start, naming the file, and
ci/verify reject that run's package ("dirty tree", naming it); and the old
name, tdc-<host>-level<N>-<date>, gives the two builds' packages one name.

  package_twice.py --build-dir BUILD
Exit 0 passed, 1 a check failed."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from tdc import ROOT

GIT = ["git", "-c", "user.name=tdc self-test", "-c", "user.email=selftest@tdc.invalid",
       "-c", "commit.gpgsign=false"]


def clean_copy(into):
    """This tree's files (tracked, and untracked ones git does not ignore: the
    change under test) in a git checkout of their own, committed: clean."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "-co", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for relative in filter(None, listed):
        source = os.path.join(ROOT, relative)
        if not os.path.isfile(source) or os.path.islink(source):
            continue  # deleted in the work tree, or a link
        target = os.path.join(into, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target)
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "package_twice.py's copy"]):
        subprocess.run([*GIT, "-C", into, *step], check=True, capture_output=True)
    return into


class Tree:
    def __init__(self, root, build, env):
        self.root, self.build, self.env, self.runs = root, build, env, 0

    def tool(self, verb, *args, timeout=600):
        """`bin/tdc VERB` of this copy: its own tools, not the tree's."""
        return subprocess.run([os.path.join(self.root, "bin", "tdc"), verb, *args], env=self.env, cwd=self.root,
                              capture_output=True, text=True, timeout=timeout)

    def run_level(self):
        """One level-1 run: (its results folder, its stderr)."""
        self.runs += 1
        results = os.path.join(self.root, "build", "conformance-selftest", f"results{self.runs}")
        run = self.tool("run", f"--build-dir={self.build}", f"--results={results}", "--level=1",
                        "--jobs=2", "--quiet", timeout=1800)
        if run.returncode != 0:
            raise AssertionError(f"tdc run exited {run.returncode}: {run.stdout[-2000:]}{run.stderr[-2000:]}")
        return results, run.stderr

    def package(self, results, *extra):
        return self.tool("package", results, "--product=package_twice.py", "--submitter=tdc self-test", *extra)

    def verify(self, package):
        run = self.tool("verify", package)
        return run.returncode, [l[len("problem: "):] for l in run.stdout.splitlines() if l.startswith("problem: ")]


def old_name(results):
    with open(os.path.join(results, "context.json"), encoding="utf-8") as f:
        context = json.load(f)
    return f"tdc-{context['host']}-level{context['level']}-{context['run_id'][:8]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    env = dict(os.environ, TDC_BACKEND_LIBS=os.path.join(build, "lib", "libtdc_loopback.so"),
               TDC_EXPECT="privateuseone:2")
    for name in ("TDC_DEVICES", "PYTHONPATH", "TDC_QUIET"):
        env.pop(name, None)
    failures = []

    def check(ok, what):
        print(("ok:     " if ok else "FAILED: ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        tree = Tree(clean_copy(os.path.join(tmp, "tree")), build, env)
        made = []
        for turn in (1, 2):
            results, stderr = tree.run_level()
            check("uncommitted changes" not in stderr, f"run {turn}: no dirty-tree warning at its start")
            packaged = tree.package(results)
            check(packaged.returncode == 0, f"run {turn}: ci/package with its defaults: exit "
                                            f"{packaged.returncode} {packaged.stderr.strip()}")
            if packaged.returncode:
                break
            made.append(packaged.stdout.strip())
            code, problems = tree.verify(made[-1])
            check(code == 0 and not problems, f"run {turn}: ci/verify {os.path.basename(made[-1])}: "
                                              f"exit {code} {problems}")
        folder = os.path.join(tree.root, "build", "packages")
        check(len(made) == 2 and all(os.path.dirname(p) == folder for p in made) and
              sorted(os.listdir(folder)) == sorted(os.path.basename(p) for p in made),
              f"both packages are in build/packages/: {os.listdir(folder) if os.path.isdir(folder) else None}")
        if len(made) == 2:
            code, problems = tree.verify(made[0])
            check(code == 0, f"the first package still verifies after the second run: exit {code} {problems}")
            status = subprocess.run(["git", "-C", tree.root, "status", "--porcelain"], capture_output=True,
                                    text=True).stdout.strip()
            check(status == "", f"the tree is clean after two runs and two packages: {status!r}")

            # Overwriting: the same run packaged again is refused, the first kept.
            before = open(made[1], "rb").read()
            again = tree.package(results, "--product=another product")
            lines = [l for l in again.stderr.splitlines() if l.strip()]
            check(again.returncode == 2 and len(lines) == 1 and "exists: refused, nothing overwritten" in lines[0]
                  and open(made[1], "rb").read() == before,
                  f"packaging one run twice is refused with one line, exit 2: exit {again.returncode} {lines}")

            # Two builds' results into one folder: two packages.
            other = results + "-other-build"
            shutil.copytree(results, other)
            with open(os.path.join(other, "context.json"), encoding="utf-8") as f:
                context = json.load(f)
            context["devices"]["libtorch_version"] = "0.0.0+selftest"
            with open(os.path.join(other, "context.json"), "w", encoding="utf-8") as f:
                json.dump(context, f)
            collected = os.path.join(tmp, "collected")
            codes = [tree.package(r, f"--out={collected}").returncode for r in (results, other)]
            found = sorted(os.listdir(collected)) if os.path.isdir(collected) else []
            check(codes == [0, 0] and len(found) == 2, f"two builds into one folder are two packages: {codes} {found}")
            check(old_name(results) == old_name(other),
                  f"(negative) the old name gives both one file: {old_name(results)}, {old_name(other)}")

            # The negative: a package in the tree's root dirties the next run.
            root_package = tree.package(results, f"--out={tree.root}", "--product=at the root")
            name = os.path.basename(root_package.stdout.strip())
            results3, stderr = tree.run_level()
            warned = [l for l in stderr.splitlines() if "uncommitted changes" in l]
            check(len(warned) == 1 and name in warned[0],
                  f"(negative) a package in the root: the next run warns at its start naming it: {warned}")
            third = tree.package(results3)
            code, problems = tree.verify(third.stdout.strip())
            check(code == 1 and any(p.startswith("dirty tree") and name in p for p in problems),
                  f"(negative) ... and ci/verify rejects that run's package as dirty: exit {code} {problems}")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

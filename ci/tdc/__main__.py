"""python3 -m tdc <verb> [arguments]: every TDC tool by one entry point (an
installed bin/tdc runs this). `python3 -m tdc --help` lists the verbs."""
import importlib
import sys

# verb -> the module whose main() it runs (the same main as ci/<tool>).
VERBS = {
    "run": "tdc.pipeline",
    "run-report": "tdc.run_report",
    "context": "tdc.context",
    "summarize": "tdc.summarize",
    "annotate": "tdc.annotate",
    "verdict": "tdc.verdict",
    "last-line": "tdc.last_line",
    "source-state": "tdc.source",
    "mustpass": "tdc.mustpass",
    "package": "tdc.package",
    "verify": "tdc.verify",
    "check-waivers": "tdc.waivers",
    "selection-report": "tdc.selection_report",
    "qualification-gate": "tdc.qualification_gate",
    "run-benchmarks": "tdc.bench.run_all",
    "check-thresholds": "tdc.bench.thresholds",
    "compare": "tdc.bench.compare",
    "compare-noise": "tdc.bench.noise",
    "plot-bandwidth": "tdc.bench.plot",
    "cold-start": "tdc.bench.cold_start",
    "side-by-side": "tdc.bench.side_by_side",
    "harness-overhead": "tdc.bench.harness_overhead",
    "level-times": "tdc.level_times",
    "build-profile": "tdc.build_profile",
    "ctest-profile": "tdc.ctest_profile",
    "under-load": "tdc.under_load",
    "ctest-tree": "tdc.installed",
}


def usage():
    lines = ["usage: python3 -m tdc <verb> [arguments]   (<verb> --help for each)", "", "verbs:"]
    for verb, module in VERBS.items():
        doc = (importlib.import_module(module).__doc__ or "").strip().splitlines()
        summary = doc[0].split(":", 1)[-1].strip() if doc else ""
        lines.append(f"  {verb:<20} {summary}")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0 if argv else 2
    verb, rest = argv[0], argv[1:]
    if verb not in VERBS:
        print(f"tdc: unknown verb {verb!r} (python3 -m tdc --help lists them)", file=sys.stderr)
        return 2
    return importlib.import_module(VERBS[verb]).main(rest)


if __name__ == "__main__":
    sys.exit(main())

"""run-report: the last step of a run, its report.html (tdc.pipeline.write_report).

  python3 -m tdc run-report --results DIR [--quiet]

ci/conformance calls it after the benchmarks, with Debian's python3 (jinja2,
matplotlib). Exit status 0: DIR/report.html written (its path printed unless
--quiet); 2: no report (one line on stderr says why). The caller's verdict
does not depend on it."""
import os

from tdc import cli, pipeline
from tdc.errors import InputError


def parser():
    p = cli.Parser("tdc run-report", __doc__)
    p.add_argument("--results", required=True, help="the run's results folder (summary.json, context.json, bench/)")
    p.add_argument("--quiet", action="store_true", help="print nothing when the report is written")
    return p


def run(argv):
    args = parser().parse_args(argv)
    if not os.path.isdir(args.results):
        raise InputError(f"--results {args.results}: not a results folder")
    path = pipeline.write_report(args.results)
    if path is None:
        return cli.BAD_INPUT
    if not args.quiet:
        print(f"report: {path}")
    return 0


def main(argv=None):
    return cli.run_main("tdc run-report", run, argv)

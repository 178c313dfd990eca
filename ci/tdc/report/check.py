"""Whether a results folder's report.html is the report of its summary.json,
without a browser (the self-tests of ci/conformance's report step; the
browser test, suites/selftest/test_reports_in_browser.py, clicks through it).

problems(results_dir) -> [one line each]: no report.html; a test of
summary.json that is not a row of the page's test table, or a row of no
test; a row whose status is not the test's; a count that is not
summary.json's. Read with html.parser: the page's own markup
(templates/run.html.j2: <tr class="test" data-name data-status>,
<b id="count-STATUS">)."""
import html.parser
import json
import os

from tdc import results

REPORT = "report.html"


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.counts, self._count = [], {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "test" in (attrs.get("class") or "").split():
            self.rows.append((attrs.get("data-name"), attrs.get("data-status")))
        elif tag == "b" and (attrs.get("id") or "").startswith("count-"):
            self._count = attrs["id"][len("count-"):]

    def handle_data(self, data):
        if self._count is not None:
            self.counts[self._count] = self.counts.get(self._count, "") + data

    def handle_endtag(self, tag):
        if tag == "b":
            self._count = None


def problems(results_dir):
    page_path = os.path.join(results_dir, REPORT)
    if not os.path.isfile(page_path):
        return [f"{results_dir} has no {REPORT}: the run's report step did not write it"]
    with open(os.path.join(results_dir, "summary.json"), encoding="utf-8") as f:
        tests = json.load(f)["tests"]
    page = _Page()
    with open(page_path, encoding="utf-8") as f:
        page.feed(f.read())
    found = []
    wanted = {t["name"]: t["status"] for t in tests}
    shown = dict(page.rows)
    missing = sorted(set(wanted) - set(shown))
    if missing:
        found.append(f"{len(missing)} of {len(wanted)} tests of summary.json are not rows of {REPORT} "
                     f"(e.g. {missing[0]})")
    extra = sorted(set(shown) - set(wanted))
    if extra or len(page.rows) != len(shown):
        found.append(f"{REPORT} has {len(page.rows)} test rows for {len(wanted)} tests (e.g. {extra[:1]})")
    wrong = sorted(name for name in set(wanted) & set(shown) if shown[name] != wanted[name])
    if wrong:
        found.append(f"{len(wrong)} rows of {REPORT} show another status than summary.json (e.g. {wrong[0]}: "
                     f"{shown[wrong[0]]}, not {wanted[wrong[0]]})")
    expected = results.counts(tests)
    for status, count in (*expected.items(), ("tests", len(tests))):
        if page.counts.get(status, "").strip() != str(count):
            found.append(f"{REPORT} counts {page.counts.get(status, '(nothing)').strip()} {status}, "
                         f"summary.json {count}")
    return found

"""The HTML reports in a real browser: headless Chromium through chromedriver
and Selenium (Debian's chromium, chromium-driver, python3-selenium), on
real runs and a real merged fleet (fleet_fixtures.py).

A run report must hold every test of summary.json, show its counts, and
show a failing cell's message when the cell is clicked; a fleet report the
matrix's counts, every row, its signatures and outliers, and a failing
cell's hosts. The same checks must find a damaged page wrong. Screenshots
land in $TDC_FLEET_FIXTURES/screens/. The browser and its driver are stopped
by PID when each test ends, passed or failed (tdc.report.browser)."""
import json
import os
import re
import shutil
import subprocess

import pytest

from tdc import ROOT
from tdc.fleet import matrix
from tdc.report import browser, run as run_report
from tdc.results import STATUSES, cells_of

FIXTURES = os.environ.get("TDC_FLEET_FIXTURES", "")


@pytest.fixture(scope="module")
def fleet():
    path = os.path.join(FIXTURES, "fleet.json")
    if not os.path.isfile(path):
        pytest.fail(f"no fleet fixtures at {FIXTURES!r}: run fleet_fixtures.py")
    with open(path) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def screens():
    folder = os.path.join(FIXTURES, "screens")
    os.makedirs(folder, exist_ok=True)
    return folder


@pytest.fixture
def driver():
    session = browser.Browser(1400, 1000)
    with session as d:
        yield d
    assert session.stopped == [], f"browser processes left running: {session.stopped}"


def by_css(driver, selector):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, selector)


def screenshot(driver, path):
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(max(height, 800), 6000))
    driver.save_screenshot(path)
    driver.set_window_size(1400, 1000)


def click_and_read(driver, cell):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", cell)
    cell.click()
    panel = by_css(driver, "#detail")[0]
    return {"shown": panel.is_displayed(), "title": by_css(driver, "#detail-title")[0].text,
            "message": by_css(driver, "#detail-message")[0].get_attribute("textContent"),
            "items": [li.get_attribute("textContent") for li in by_css(driver, "#detail-items li")]}


def run_page_problems(driver, summary):
    """What the run page gets wrong about summary.json (empty: nothing)."""
    problems = []
    tests = summary["tests"]
    shown = [row.get_attribute("data-name") for row in by_css(driver, "tr.test")]
    missing = sorted({t["name"] for t in tests} - set(shown))
    if missing or len(shown) != len(tests):
        problems.append(f"{len(missing)} test(s) of summary.json not in the page (e.g. {missing[:1]}), "
                        f"{len(shown)} rows for {len(tests)} tests")
    for status in STATUSES:
        count = by_css(driver, f"#count-{status}")
        text = count[0].get_attribute("textContent").strip() if count else None
        if text != str(summary["totals"][status]):
            problems.append(f"count of {status}: page says {text}, summary.json {summary['totals'][status]}")
    cells = cells_of(run_report.labelled(tests))  # reference results in columns of their own
    failing = [(d, c) for d, by_check in cells.items() for c, cell in by_check.items() if cell["status"] == "failed"]
    page_failing = by_css(driver, "td.cell.s-failed")
    if len(page_failing) != len(failing):
        problems.append(f"{len(page_failing)} failing cells in the page, {len(failing)} in the results")
    for cell in page_failing[:3]:
        device, check = cell.get_attribute("data-cell").split("|", 1)
        seen = click_and_read(driver, cell)
        want = cells.get(device, {}).get(check, {}).get("message")
        if not seen["shown"] or seen["message"] != want or seen["title"] != f"{check} on {device}":
            problems.append(f"clicking {check} on {device} shows {seen}, not its message {want!r}")
    return problems


@pytest.mark.parametrize("node", ["n4-faulty", "n1"])
def test_run_report_in_chromium(driver, fleet, screens, node):
    results = fleet["nodes"][node]["results"]
    page = run_report.write_run_report(results, os.path.join(screens, f"run-{node}.html"))
    with open(os.path.join(results, "summary.json")) as f:
        summary = json.load(f)
    driver.get("file://" + page)
    assert driver.title.startswith("TDC run on ")
    screenshot(driver, os.path.join(screens, f"run-{node}.png"))
    problems = run_page_problems(driver, summary)
    assert problems == []
    if node == "n4-faulty":  # its copies are corrupt: every benchmark refused to time them
        assert summary["totals"]["failed"] > 0 and by_css(driver, "td.cell.s-failed")
        assert "reported an error" in by_css(driver, "#benchmarks-why")[0].text
    else:
        assert by_css(driver, "#chart-bandwidth") and by_css(driver, "#chart-latency")
    if by_css(driver, "td.cell.s-failed"):
        driver.save_screenshot(os.path.join(screens, f"run-{node}-clicked.png"))


def test_the_run_page_checks_find_a_damaged_page(driver, fleet, screens, tmp_path):
    results = fleet["nodes"]["n4-faulty"]["results"]
    page = run_report.write_run_report(results, str(tmp_path / "report.html"))
    text = open(page).read()
    text, removed = re.subn(r'<tr class="test" data-name="[^"]*".*?</tr>', "", text, count=1, flags=re.S)
    assert removed == 1
    text = re.sub(r'(<b id="count-passed">)(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + 1), text)
    text = text.replace('<pre id="detail-message"></pre>', '<pre id="detail-message-gone"></pre>'
                        '<pre id="detail-message"></pre>').replace("textContent = data.message", "textContent = 'x'")
    damaged = tmp_path / "damaged.html"
    damaged.write_text(text)
    with open(os.path.join(results, "summary.json")) as f:
        summary = json.load(f)
    driver.get("file://" + str(damaged))
    problems = run_page_problems(driver, summary)
    assert any("not in the page" in p for p in problems)
    assert any(p.startswith("count of passed") for p in problems)
    assert any(p.startswith("clicking ") for p in problems)


def test_fleet_report_in_chromium(driver, fleet, screens, tmp_path):
    tasks = [{"host": fleet["nodes"][n]["host"], "build": fleet["libtorch"], "job_id": "7", "array_task_id": i,
              "state": "COMPLETED", "exit_code": 0, "package": fleet["nodes"][n]["packages"]["2"], "reason": ""}
             # Night 2's own runs: a run merged on night 1 is a replay on night 2 (ci/merge --history).
             for i, n in enumerate(["n4-faulty" if n == "n4" else n for n in fleet["nights"]["2"]])]
    tasks.append({"host": "n7", "build": fleet["libtorch"], "job_id": "7", "array_task_id": 9, "state": "TIMEOUT",
                  "exit_code": None, "package": None, "reason": "Slurm: TIMEOUT"})
    (tmp_path / "tasks.json").write_text(json.dumps(tasks))
    out = tmp_path / "merged"
    night1 = [fleet["nodes"][n]["package"] for n in fleet["nights"]["1"]]
    first = subprocess.run([os.path.join(ROOT, "ci", "merge"), *night1, "--out", str(tmp_path / "h" / "1"),
                            "--night", "2026-01-01", "--no-html"], capture_output=True, text=True, timeout=600)
    assert first.returncode in (0, 1), first.stderr
    merged = subprocess.run([os.path.join(ROOT, "ci", "merge"), *fleet["forged"].values(), "--out", str(out),
                             "--tasks", str(tmp_path / "tasks.json"), "--history", str(tmp_path / "h"),
                             "--allowed-signers", os.path.join(FIXTURES, "allowed_signers"),
                             "--night", "2026-01-02"], capture_output=True, text=True, timeout=600)
    assert merged.returncode == 1, merged.stderr
    header, rows = matrix.read(str(out / "matrix.json"))
    rows = list(rows)
    page = str(out / "fleet.html")
    shutil.copy(page, os.path.join(screens, "fleet.html"))
    driver.get("file://" + page)
    totals = header["totals"]
    for key in ("rows", "verified", "unverified", "no_package", "failed"):
        assert by_css(driver, f"#count-{key}")[0].get_attribute("textContent").strip() == str(totals[key]), key
    shown = sorted((r.get_attribute("data-host"), r.get_attribute("data-trust")) for r in by_css(driver, "tr.row"))
    assert shown == sorted((r["host"], r["trust"]) for r in rows)
    groups = [(int(r.get_attribute("data-count")), r.get_attribute("data-outcome"))
              for r in by_css(driver, "tr.signature")]
    assert groups == [(g["count"], g["outcome"]) for g in header["signatures"]]
    outliers = {(r.get_attribute("data-host"), r.get_attribute("data-device")) for r in by_css(driver, "tr.outlier")}
    assert outliers == {(o["host"], o["device"]) for o in header["outliers"]["devices"]}
    assert outliers and {h for h, _ in outliers} == {fleet["delayed"]}
    assert [i["hosts"] for i in header["history"]["still_failing"]][:1] == [[f"n4 ({fleet['libtorch']})"]]
    screenshot(driver, os.path.join(screens, "fleet.png"))
    assert header["failing_cells"]
    for cell in by_css(driver, "td.cell.s-failed")[:3]:
        device, check = cell.get_attribute("data-cell").split("|", 1)
        want = next(c for c in header["failing_cells"] if c["device"] == device and c["check"] == check)
        seen = click_and_read(driver, cell)
        assert seen["shown"] and seen["message"] == want["message"] and seen["items"] == want["hosts"]
        assert seen["items"] == [f"n4 ({fleet['libtorch']})"]
    driver.save_screenshot(os.path.join(screens, "fleet-clicked.png"))

"""A real browser for the report self-tests: headless Chromium driven by
chromedriver through Selenium (Debian's chromium, chromium-driver,
python3-selenium).

chromedriver is started here, as a child whose PID we hold, and Selenium
talks to it over its port; on leaving the `with` block, also when a check
failed, the session is closed and then chromedriver and every process under
it (the browser, its renderers) are stopped by PID: SIGTERM, then SIGKILL
for what is left after a grace period."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

from tdc.errors import InputError
from tdc.optional import require


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid):
    """Every process under pid, from /proc (children before their parent)."""
    found, children = [], []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:  # a child belongs to the thread that forked it
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children += [int(c) for c in f.read().split()]
        except OSError:
            continue
    for child in children:
        found += descendants(child) + [child]
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Browser:
    def __init__(self, width=1400, height=1000):
        self.selenium = require("selenium.webdriver", "python3-selenium")
        self.chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        self.chromedriver = shutil.which("chromedriver")
        if not self.chromium or not self.chromedriver:
            raise InputError("needs chromium and chromedriver: install Debian's chromium and "
                             "chromium-driver (ci/lib.sh tdc_provision_report_tools)")
        self.size = (width, height)
        self.driver = self.process = None
        self.pids = []

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="tdc-chromium-")
        port = _free_port()
        self.log = open(os.path.join(self.profile, "chromedriver.log"), "w")
        self.process = subprocess.Popen([self.chromedriver, f"--port={port}"], stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/status", timeout=2).read()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self._stop()
                    raise InputError(f"chromedriver did not start (log: {self.log.name})")
                time.sleep(0.1)
        options = self.selenium.ChromeOptions()
        options.binary_location = self.chromium
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--user-data-dir={self.profile}/profile", f"--window-size={self.size[0]},{self.size[1]}",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking"):
            options.add_argument(flag)
        try:
            self.driver = self.selenium.Remote(command_executor=url, options=options)
        except Exception:
            self._stop()
            raise
        self.pids = descendants(self.process.pid)
        return self.driver

    def __exit__(self, *exc):
        self._stop()
        return False

    def _stop(self):
        if self.driver is not None:
            try:
                self.driver.quit()
            except Exception:  # noqa: BLE001 - the PIDs below are stopped either way
                pass
        if self.process is not None:
            pids = list(dict.fromkeys(descendants(self.process.pid) + self.pids + [self.process.pid]))
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 5
            while any(_alive(p) for p in pids) and time.monotonic() < deadline:
                time.sleep(0.1)
            for pid in pids:
                if _alive(pid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
            self.stopped = [p for p in pids if _alive(p)]
        if getattr(self, "log", None):
            self.log.close()
        if getattr(self, "profile", None):
            shutil.rmtree(self.profile, ignore_errors=True)

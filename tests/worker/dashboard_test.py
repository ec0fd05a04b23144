#!/usr/bin/python3
"""The dashboard at / in headless Chromium, driven through chromedriver (Debian's chromium,
chromium-driver and python3-selenium), against a real redis-server and `ingestd worker`.

It checks that the page loads without console errors, lists the files the test submitted with
their status, error and a 72 px thumbnail that really decoded, shows the dead-letter count, and
updates by itself when another file finishes. A screenshot is left at OUT/dashboard.png.

Chromium starts robustly in a bare container (no sandbox, no /dev/shm, a fresh profile, a
start-up timeout a loaded machine meets, a few attempts). When no browser can start, the test
exits with SKIP (ctest's SKIP_RETURN_CODE) and says why, except under CI (CI=true), where
that is a failure. The chromedriver logs are left at OUT/chromedriver-N.log.

    dashboard_test.py --ingestd build/ingestd --out build/dashboard
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from polling import browser_test_args, eventually, free_port  # noqa: E402

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.remote_connection import RemoteConnection
    SELENIUM_MISSING = None
except ImportError as e:  # reported by start_browser: a skip outside CI, a failure in it
    SELENIUM_MISSING = f"python3-selenium missing ({e})"

SKIP = 77  # the SKIP_RETURN_CODE of dashboard_chromium in tests/worker/CMakeLists.txt
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
STARTUP_TIMEOUT = 60.0  # seconds for one browser start, what a loaded 2-core machine meets
STARTUP_ATTEMPTS = 3
CHROMIUM_FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                  "--no-first-run", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--window-size=1280,1000")


class BrowserUnavailable(Exception):
    """No browser could start; the message says why."""


def tail(path, size=400):
    """The end of a log file on one line, for a skip or failure message."""
    try:
        with open(path, errors="replace") as f:
            return " / ".join(f.read()[-size:].split("\n")).strip(" /")
    except OSError:
        return ""


def start_browser(work, out):
    """Starts headless Chromium under chromedriver with a fresh profile, up to STARTUP_ATTEMPTS
    times, each within STARTUP_TIMEOUT; raises BrowserUnavailable with every attempt's reason."""
    if SELENIUM_MISSING:
        raise BrowserUnavailable(SELENIUM_MISSING)
    for binary in (CHROMIUM, CHROMEDRIVER):
        if not os.access(binary, os.X_OK):
            raise BrowserUnavailable(f"{binary} missing (Debian's chromium and chromium-driver)")
    # Bounds every request to chromedriver, the new session (the browser's start) included.
    RemoteConnection.set_timeout(STARTUP_TIMEOUT)
    reasons = []
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        profile = tempfile.mkdtemp(prefix=f"chromium-{attempt}-", dir=work)
        opts = webdriver.ChromeOptions()
        for flag in CHROMIUM_FLAGS + (f"--user-data-dir={profile}",):
            opts.add_argument(flag)
        opts.binary_location = CHROMIUM
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # A home of its own, so that a read-only or missing $HOME does not stop the browser.
        env = dict(os.environ, HOME=profile, XDG_CONFIG_HOME=profile, XDG_CACHE_HOME=profile)
        log_path = os.path.join(out, f"chromedriver-{attempt}.log")
        service = Service(CHROMEDRIVER, log_path=log_path, env=env)
        try:
            return webdriver.Chrome(service=service, options=opts)
        except Exception as e:  # noqa: BLE001 - every start failure is a reason to report
            first_line = (str(e).strip().splitlines() or [type(e).__name__])[0]
            reasons.append(f"attempt {attempt}: {first_line} | chromedriver log: {tail(log_path)}")
            try:
                service.stop()
            except Exception:  # noqa: BLE001 - already gone
                pass
    raise BrowserUnavailable("; ".join(reasons))


class Fleet:
    """A redis-server and one `ingestd worker` with its endpoint, in `work`."""

    def __init__(self, ingestd, work, out):
        self.ingestd, self.work, self.out, self.procs, self.log = ingestd, work, out, [], None
        self.redis_port, self.base, self.env = free_port(), None, None

    def start(self):
        work, http_port = self.work, free_port()
        self.procs.append(subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work],
            stdout=subprocess.DEVNULL))
        eventually("redis", lambda: self.redis_cli("PING") == "PONG")
        store = os.path.join(work, "store")
        os.makedirs(store)
        self.env = dict(os.environ,
                        INGEST_REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/0",
                        INGEST_STORAGE_ROOT=store,
                        INGEST_HTTP_ADDR=f"127.0.0.1:{http_port}",
                        INGEST_OCR_MODE="off",
                        INGEST_CONCURRENCY="2",
                        INGEST_CONSUMER="dash1",
                        OMP_THREAD_LIMIT="1")
        self.log = open(os.path.join(self.out, "worker.log"), "w")
        self.procs.append(subprocess.Popen([self.ingestd, "worker"], env=self.env, stdout=self.log,
                                           stderr=subprocess.STDOUT))
        self.base = f"http://127.0.0.1:{http_port}"
        eventually("/readyz", lambda: urllib.request.urlopen(self.base + "/readyz", timeout=2).status == 200)

    def redis_cli(self, *args):
        return subprocess.run(["redis-cli", "-p", str(self.redis_port), *args], capture_output=True,
                              text=True, check=True).stdout.strip()

    def submit(self, path):
        """`ingestd submit --wait`: the file's final metadata."""
        out = subprocess.run([self.ingestd, "submit", path, "--wait"], env=self.env, capture_output=True, text=True,
                             timeout=120)
        return json.loads(out.stdout.splitlines()[0])

    def write(self, name, text):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def stop(self):
        for p in reversed(self.procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        if self.log is not None:
            self.log.close()


def submit_files(fleet):
    """An image (with thumbnails), a text file, and two events that fail (one dead-lettered)."""
    photo = os.path.join(fleet.work, "photo.jpg")
    subprocess.run(["vips", "gaussnoise", photo, "400", "300", "--mean", "128", "--sigma", "40"], check=True)
    first = fleet.submit(photo)
    assert first["status"] == "done" and first.get("thumbnail_72_key"), first
    text = fleet.submit(fleet.write("note.txt", "meeting notes\n"))
    fleet.redis_cli("XADD", "ingest:uploads", "*", "file_id", "broken1", "storage_key", "not/there.bin")
    fleet.redis_cli("XADD", "ingest:uploads", "*", "file_id", "bad id!", "storage_key", "x")
    return first, text


def check_dashboard(driver, fleet, first, text):
    """The rows, the thumbnail, the cards and the minute bars, then a file arriving later."""
    def row(file_id):
        return driver.find_element(By.CSS_SELECTOR, f'#recent tbody tr[data-file-id="{file_id}"]')

    def status_of(file_id):
        return row(file_id).find_element(By.CSS_SELECTOR, "td.status").text

    def text_of(element_id):
        return driver.find_element(By.ID, element_id).text

    eventually("the image's row", lambda: status_of(first["file_id"]) == "done")
    eventually("the text file's row", lambda: status_of(text["file_id"]) == "done")
    eventually("the failed file's row", lambda: status_of("broken1") == "failed")
    assert "storage_missing" in row("broken1").text, row("broken1").text

    img = row(first["file_id"]).find_element(By.CSS_SELECTOR, "td.thumb img")
    eventually("the thumbnail to decode", lambda: driver.execute_script(
        "return arguments[0].complete && arguments[0].naturalWidth > 0", img))
    width = driver.execute_script("return arguments[0].naturalWidth", img)
    assert width == 72, f"thumbnail is {width} px wide, want 72"
    assert not row(text["file_id"]).find_elements(By.CSS_SELECTOR, "td.thumb img"), "text file shows a thumbnail"

    eventually("the ready state", lambda: text_of("state") == "ready")
    eventually("the dead-letter count", lambda: text_of("dead") == "1")
    assert text_of("lag") == "0"
    assert text_of("in-flight") == "0 / 2"
    # 2 done; 1 failed, 1 dead-lettered
    eventually("the failure rate", lambda: text_of("failure-rate") == "50.0 %")
    bars = driver.find_elements(By.CSS_SELECTOR, "#minutes > div")
    assert len(bars) == 15, len(bars)

    # A file finishing after the page loaded shows up without a reload.
    marker = driver.execute_script("window.__same_page = 1; return 1")
    third = fleet.submit(fleet.write("later.txt", "arrived later\n"))
    eventually("the new file on the open page", lambda: status_of(third["file_id"]) == "done", limit=20)
    assert driver.execute_script("return window.__same_page") == marker, "the page was reloaded"


def main():
    args, work = browser_test_args("ingestd-dashboard-")
    fleet = None
    driver = None
    try:
        # The browser first: when none can start, nothing else is worth doing.
        try:
            driver = start_browser(work, args.out)
        except BrowserUnavailable as e:
            if os.environ.get("CI") == "true":
                print(f"dashboard: FAILED: no browser could start (CI=true): {e}", file=sys.stderr)
                return 1
            print(f"dashboard: SKIPPED: no browser could start: {e}")
            return SKIP
        fleet = Fleet(args.ingestd, work, args.out)
        fleet.start()
        first, text = submit_files(fleet)
        driver.set_page_load_timeout(30)
        driver.get(fleet.base + "/")
        check_dashboard(driver, fleet, first, text)

        shot = os.path.join(args.out, "dashboard.png")
        driver.save_screenshot(shot)
        assert os.path.getsize(shot) > 10000, "screenshot is suspiciously small"
        errors = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert not errors, f"console errors: {errors}"
        print(f"dashboard: ok, screenshot {shot}")
        return 0
    finally:
        if driver is not None:
            driver.quit()
        if fleet is not None:
            fleet.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

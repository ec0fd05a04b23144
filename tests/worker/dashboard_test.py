#!/usr/bin/python3
"""The dashboard at / in headless Chromium, driven through chromedriver (Debian's chromium,
chromium-driver and python3-selenium), against a real redis-server and `ingestd worker`.

It checks that the page loads without console errors, lists the files the test submitted with
their status, error and a 72 px thumbnail that really decoded, shows the dead-letter count, and
updates by itself when another file finishes. A screenshot is left at OUT/dashboard.png.

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

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eventually(what, pred, limit=30.0):
    end = time.monotonic() + limit
    while True:
        try:
            value = pred()
            if value:
                return value
        except Exception:  # noqa: BLE001 - not there yet
            pass
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingestd", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ingestd-dashboard-")
    procs = []
    driver = None
    try:
        redis_port, http_port = free_port(), free_port()
        procs.append(subprocess.Popen(
            ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work],
            stdout=subprocess.DEVNULL))
        eventually("redis", lambda: subprocess.run(
            ["redis-cli", "-p", str(redis_port), "PING"], capture_output=True, text=True).stdout.strip() == "PONG")
        store = os.path.join(work, "store")
        os.makedirs(store)
        env = dict(os.environ,
                   INGEST_REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
                   INGEST_STORAGE_ROOT=store,
                   INGEST_HTTP_ADDR=f"127.0.0.1:{http_port}",
                   INGEST_OCR_MODE="off",
                   INGEST_CONCURRENCY="2",
                   INGEST_CONSUMER="dash1",
                   OMP_THREAD_LIMIT="1")
        log = open(os.path.join(args.out, "worker.log"), "w")
        procs.append(subprocess.Popen([args.ingestd, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT))
        base = f"http://127.0.0.1:{http_port}"
        eventually("/readyz", lambda: urllib.request.urlopen(base + "/readyz", timeout=2).status == 200)

        def submit(path, wait=True):
            cmd = [args.ingestd, "submit", path] + (["--wait"] if wait else [])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            return json.loads(out.stdout.splitlines()[0])

        # An image (with thumbnails), a text file, and an event that fails.
        photo = os.path.join(work, "photo.jpg")
        subprocess.run(["vips", "gaussnoise", photo, "400", "300", "--mean", "128", "--sigma", "40"], check=True)
        note = os.path.join(work, "note.txt")
        with open(note, "w") as f:
            f.write("meeting notes\n")
        first = submit(photo)
        assert first["status"] == "done" and first.get("thumbnail_72_key"), first
        text = submit(note)
        subprocess.run(["redis-cli", "-p", str(redis_port), "XADD", "ingest:uploads", "*",
                        "file_id", "broken1", "storage_key", "not/there.bin"], check=True, capture_output=True)
        subprocess.run(["redis-cli", "-p", str(redis_port), "XADD", "ingest:uploads", "*",
                        "file_id", "bad id!", "storage_key", "x"], check=True, capture_output=True)

        opts = webdriver.ChromeOptions()
        for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--no-first-run", "--disable-background-networking", "--window-size=1280,1000"):
            opts.add_argument(a)
        opts.binary_location = "/usr/bin/chromium"
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
        driver.set_page_load_timeout(30)
        driver.get(base + "/")

        def row(file_id):
            return driver.find_element(By.CSS_SELECTOR, f'#recent tbody tr[data-file-id="{file_id}"]')

        def status_of(file_id):
            return row(file_id).find_element(By.CSS_SELECTOR, "td.status").text

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

        eventually("the ready state", lambda: driver.find_element(By.ID, "state").text == "ready")
        eventually("the dead-letter count", lambda: driver.find_element(By.ID, "dead").text == "1")
        assert driver.find_element(By.ID, "lag").text == "0"
        assert driver.find_element(By.ID, "in-flight").text == "0 / 2"
        eventually("the failure rate", lambda: driver.find_element(By.ID, "failure-rate").text == "50.0 %")  # 2 done; 1 failed, 1 dead-lettered
        bars = driver.find_elements(By.CSS_SELECTOR, "#minutes > div")
        assert len(bars) == 15, len(bars)

        # A file finishing after the page loaded shows up without a reload.
        later = os.path.join(work, "later.txt")
        with open(later, "w") as f:
            f.write("arrived later\n")
        marker = driver.execute_script("window.__same_page = 1; return 1")
        third = submit(later)
        eventually("the new file on the open page", lambda: status_of(third["file_id"]) == "done", limit=20)
        assert driver.execute_script("return window.__same_page") == marker, "the page was reloaded"

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
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""The dashboard as an operator uses it, in headless Chromium: two workers with
INGEST_HTTP_TOKEN set (the browser gives the token once, as Basic credentials), the fleet
view on one pod listing both, a search by name, a file's page, a retry clicked on that page
and its effect in Redis, and the dead letters purged from their page. Screenshots of the
dashboard and of the file page are left in OUT.

    dashboard_fleet_test.py --ingestd build/ingestd --out build/dashboard-fleet
"""
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dashboard_test import SKIP, BrowserUnavailable, By, start_browser  # noqa: E402
from polling import browser_test_args, eventually, free_port, start_redis, stop_all  # noqa: E402

TOKEN = "t0ken-xyz"


def start_fleet(ingestd, work, procs):
    """redis-server and workers fa and fb, each with its endpoint; returns (cli, ports, env)."""
    redis, port = start_redis(work)
    procs.append(redis)
    store = os.path.join(work, "store")
    os.makedirs(os.path.join(store, "up"))
    env = dict(os.environ, INGEST_REDIS_URL=f"redis://127.0.0.1:{port}/0", INGEST_STORAGE_ROOT=store,
               INGEST_OCR_MODE="off", INGEST_HTTP_TOKEN=TOKEN, OMP_THREAD_LIMIT="1", INGEST_CONCURRENCY="1")
    ports = []
    for name in ("fa", "fb"):
        http = free_port()
        log = open(os.path.join(work, f"worker-{name}.log"), "w")
        procs.append(subprocess.Popen([ingestd, "worker"], stdout=log, stderr=subprocess.STDOUT,
                                      env=dict(env, INGEST_CONSUMER=name, INGEST_HTTP_ADDR=f"127.0.0.1:{http}")))
        eventually(f"{name} ready", lambda: urllib.request.urlopen(
            f"http://127.0.0.1:{http}/readyz", timeout=2).status == 200)
        ports.append(http)
    cli = ["redis-cli", "-p", str(port)]
    return cli, ports, store


def redis(cli, *args):
    return subprocess.run(cli + list(args), capture_output=True, text=True, check=True).stdout.strip()


def run(driver, cli, ports, store, out):
    with open(os.path.join(store, "up", "alpha.txt"), "w") as f:
        f.write("quarterly report alpha\n")
    redis(cli, "XADD", "ingest:uploads", "*", "file_id", "alpha1", "storage_key", "up/alpha.txt",
          "name", "report-alpha.txt", "owner", "ann")
    redis(cli, "XADD", "ingest:uploads", "*", "file_id", "gone1", "storage_key", "up/missing.txt")
    eventually("both final", lambda: redis(cli, "HGET", "ingest:file:alpha1", "status") == "done"
               and redis(cli, "HGET", "ingest:file:gone1", "status") == "failed", limit=60)
    base = f"http://u:{TOKEN}@127.0.0.1:{ports[0]}"
    driver.get(base + "/")
    rows = lambda: driver.find_elements(By.CSS_SELECTOR, "#workers tbody tr")  # noqa: E731
    try:
        eventually("both workers on one pod",
                   lambda: {r.get_attribute("data-worker") for r in rows()} == {"fa", "fb"})
    except AssertionError:
        print(driver.find_element(By.ID, "state").text, driver.get_log("browser"))
        raise
    eventually("fleet failures by code", lambda: "storage_missing" in driver.find_element(By.ID, "fleet-codes").text)
    driver.save_screenshot(os.path.join(out, "dashboard-fleet.png"))

    search = driver.find_element(By.CSS_SELECTOR, "input[name=q]")
    search.send_keys("alpha")
    search.submit()
    eventually("the search result", lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-file-id="alpha1"] a'))
    assert not driver.find_elements(By.CSS_SELECTOR, 'tr[data-file-id="gone1"]'), driver.page_source[:2000]
    driver.find_element(By.CSS_SELECTOR, 'tr[data-file-id="alpha1"] a').click()
    eventually("the file page", lambda: "report-alpha.txt" in driver.find_element(By.ID, "metadata").text)
    assert "quarterly report alpha" in driver.find_element(By.ID, "text").text
    driver.save_screenshot(os.path.join(out, "file-page.png"))

    before = redis(cli, "HGET", "ingest:file:alpha1", "event_id")
    driver.find_element(By.ID, "retry").click()
    done = eventually("the confirmation", lambda: driver.find_element(By.ID, "done").text)
    assert "alpha1" in done and "re-queued" in done, done
    eventually("the retry processed", lambda: redis(cli, "HGET", "ingest:file:alpha1", "event_id") != before
               and redis(cli, "HGET", "ingest:file:alpha1", "status") == "done", limit=60)
    assert redis(cli, "HGET", "ingest:file:alpha1", "event_id") in done, done

    redis(cli, "XADD", "ingest:uploads:dead", "*", "file_id", "d1", "storage_key", "x", "dead_reason", "test")
    driver.get(f"http://127.0.0.1:{ports[1]}/dead")
    eventually("the dead letter", lambda: "d1" in driver.find_element(By.ID, "dead").text)
    driver.find_element(By.XPATH, "//button[text()='Purge all']").click()
    done = eventually("the purge confirmation", lambda: driver.find_element(By.ID, "done").text)
    assert done.startswith("1 dead letters"), done
    assert redis(cli, "XLEN", "ingest:uploads:dead") == "0"


def main():
    args, work = browser_test_args("ingestd-fleet-dashboard-")
    procs, driver = [], None
    try:
        try:
            driver = start_browser(work, args.out)
        except BrowserUnavailable as e:
            print(f"dashboard fleet: no browser could start: {e}")
            return 1 if os.environ.get("CI") == "true" else SKIP
        driver.set_page_load_timeout(30)
        cli, ports, store = start_fleet(args.ingestd, work, procs)
        run(driver, cli, ports, store, args.out)
        print(f"dashboard fleet: ok, screenshots in {args.out}")
        return 0
    finally:
        if driver is not None:
            driver.quit()
        stop_all(procs)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Helpers of the Python tests: a free loopback port, and polling with a deadline."""
import socket
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def eventually(what, pred, limit=30.0):
    """Polls `pred` every 0.1 s until it returns something true (returned), or raises
    AssertionError after `limit` seconds; an exception from `pred` counts as "not yet"."""
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


def start_redis(work):
    """A private redis-server on a free loopback port, answering PING: (process, port)."""
    import subprocess
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL)
    eventually("redis", lambda: subprocess.run(["redis-cli", "-p", str(port), "PING"], capture_output=True,
                                               text=True).stdout.strip() == "PONG")
    return proc, port


def stop_all(procs):
    """SIGTERM to each process, last started first; SIGKILL to one that does not exit in 30 s."""
    import signal
    import subprocess
    for p in reversed(procs):
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()


FAILURES = []


def check(ok, what):
    """Prints `what` as ok or FAIL; a failure is kept in FAILURES for the exit code."""
    if not ok:
        FAILURES.append(what)
    print(("ok    " if ok else "FAIL  ") + what)


def browser_test_args(prefix):
    """The --ingestd and --out arguments of a browser test, OUT made, and a scratch folder."""
    import argparse
    import os
    import tempfile
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingestd", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    return args, tempfile.mkdtemp(prefix=prefix)

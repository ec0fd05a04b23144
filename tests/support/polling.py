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

#!/usr/bin/python3
"""The README's producer examples, run as a user would copy them: the ```python and ```js
blocks under "Producing events" are extracted (only the Redis URL is pointed at a private
redis-server), and each runs several times against a real `ingestd worker`; every run must
print the file's final metadata, with the name, owner and submitted_at the example wrote.
Then `ingestd reconcile --older-than 0` re-appends nothing. Node runs with the ioredis of
tests/producers/node_modules (scripts/install-deps.sh installs it; exit 77 = skip without it,
a failure under CI=true).

    producers_test.py --ingestd build/ingestd --source .
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "support"))
from polling import eventually, free_port, start_redis, stop_all  # noqa: E402

RUNS = 5
README_URL = "redis://127.0.0.1:6379/0"


def blocks(readme):
    section = readme[readme.index("## Producing events"):]
    section = section[:section.index("\n## ", 5)]
    return {lang: re.search(r"```" + lang + r"\n(.*?)```", section, re.S).group(1) for lang in ("python", "js")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingestd", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    modules = os.path.join(args.source, "tests", "producers", "node_modules")
    if not os.path.isdir(os.path.join(modules, "ioredis")):
        print("ioredis not installed in tests/producers (scripts/install-deps.sh)")
        return 1 if os.environ.get("CI") == "true" else 77
    code = blocks(open(os.path.join(args.source, "README.md")).read())
    with tempfile.TemporaryDirectory(prefix="producers-") as work:
        redis, redis_port = start_redis(work)
        http_port, procs = free_port(), [redis]
        url = f"redis://127.0.0.1:{redis_port}/0"
        try:
            store = os.path.join(work, "store")
            os.makedirs(os.path.join(store, "up"))
            env = dict(os.environ, INGEST_REDIS_URL=url, INGEST_STORAGE_ROOT=store, INGEST_OCR_MODE="off",
                       INGEST_HTTP_ADDR=f"127.0.0.1:{http_port}", INGEST_CONCURRENCY="2", OMP_THREAD_LIMIT="1",
                       NODE_PATH=modules)
            log = open(os.path.join(work, "worker.log"), "w")
            procs.append(subprocess.Popen([args.ingestd, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT))
            eventually("/readyz", lambda: urllib.request.urlopen(
                f"http://127.0.0.1:{http_port}/readyz", timeout=2).status == 200)
            failures = 0
            for lang, runner, suffix in (("python", [sys.executable], ".py"), ("js", ["node"], ".js")):
                path = os.path.join(work, "example" + suffix)
                with open(path, "w") as f:
                    f.write(code[lang].replace(README_URL, url))
                for i in range(RUNS):
                    file_id, key = f"{lang}{i}", f"up/{lang}{i}.txt"
                    with open(os.path.join(store, key), "w") as f:
                        f.write(f"example {lang} {i}\n")
                    r = subprocess.run(runner + [path, file_id, key], env=env, capture_output=True, text=True,
                                       timeout=120)
                    lines = r.stdout.strip().splitlines()
                    meta = json.loads(lines[-1]) if r.returncode == 0 and lines else {}
                    ok = meta.get("status") == "done" and meta.get("owner") == "user-42" and \
                        meta.get("name") and meta.get("submitted_at")
                    print(("ok    " if ok else "FAIL  ") + f"{lang} run {i}: {r.stdout.strip()[-200:]} {r.stderr[-300:]}")
                    failures += 0 if ok else 1
            r = subprocess.run([args.ingestd, "reconcile", "--older-than", "0"], env=env, capture_output=True,
                               text=True, timeout=60)
            ok = r.returncode == 0 and r.stdout == ""
            print(("ok    " if ok else "FAIL  ") + f"reconcile re-appends nothing: {r.stdout} {r.stderr}")
            failures += 0 if ok else 1
        finally:
            stop_all(procs)
    print(f"{failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

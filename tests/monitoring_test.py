#!/usr/bin/python3
"""docker/monitoring/ against a real worker: the alert rules pass `promtool check rules`, the
/metrics of a worker that processed a text file and a corrupt PDF pass `promtool check
metrics`, the Grafana dashboard is an importable dashboard (its panels well formed), and every
metric its queries and the alert rules use exists in that /metrics.

    monitoring_test.py --ingestd build/ingestd --source .
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
from polling import FAILURES, check, eventually, free_port, start_redis, stop_all  # noqa: E402

def metric_names(expr):
    """The metric names a PromQL expression reads: identifiers that are neither functions,
    keywords, label names (inside braces or by/without lists) nor range durations."""
    expr = re.sub(r'"[^"]*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}", "", expr)
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    words = {w for w, call in re.findall(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", expr) if not call}
    keywords = {"and", "or", "unless", "bool", "offset", "le", "vector", "inf", "nan"}
    return {w for w in words if w not in keywords and not re.fullmatch(r"\d+[smhdwy]?", w)}


def exported_names(text):
    names = set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            name, kind = line.split()[2:4]
            names.add(name)
            if kind == "histogram":
                names.update({name + "_bucket", name + "_sum", name + "_count"})
        elif line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names


def dashboard_exprs(path):
    d = json.load(open(path))
    check(isinstance(d.get("panels"), list) and d["panels"], "the Grafana dashboard has panels")
    check(bool(d.get("uid")) and bool(d.get("title")) and isinstance(d.get("schemaVersion"), int),
          "the Grafana dashboard has uid, title and schemaVersion")
    exprs, ids = [], set()
    for p in d["panels"]:
        ok = all(k in p for k in ("id", "type", "title", "gridPos", "targets")) and p["id"] not in ids
        ok = ok and all(k in p["gridPos"] for k in ("h", "w", "x", "y"))
        check(ok, f"panel {p.get('title')!r} is well formed")
        ids.add(p.get("id"))
        exprs += [t["expr"] for t in p.get("targets", [])]
    return exprs


def worker_metrics(ingestd, work):
    """Runs redis-server and one worker, processes a text file and a corrupt PDF, returns /metrics."""
    redis, redis_port = start_redis(work)
    http_port, procs = free_port(), [redis]
    try:
        cli = ["redis-cli", "-p", str(redis_port)]
        store = os.path.join(work, "store")
        os.makedirs(store)
        with open(os.path.join(store, "a.txt"), "w") as f:
            f.write("hello\n")
        with open(os.path.join(store, "bad.pdf"), "w") as f:
            f.write("%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage\n")
        env = dict(os.environ, INGEST_REDIS_URL=f"redis://127.0.0.1:{redis_port}/0", INGEST_STORAGE_ROOT=store,
                   INGEST_HTTP_ADDR=f"127.0.0.1:{http_port}", INGEST_OCR_MODE="off", INGEST_CONCURRENCY="1",
                   OMP_THREAD_LIMIT="1")
        log = open(os.path.join(work, "worker.log"), "w")
        procs.append(subprocess.Popen([ingestd, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT))
        base = f"http://127.0.0.1:{http_port}"
        eventually("/readyz", lambda: urllib.request.urlopen(base + "/readyz", timeout=2).status == 200)
        for fid, key in (("m1", "a.txt"), ("m2", "bad.pdf")):
            subprocess.run(cli + ["XADD", "ingest:uploads", "*", "file_id", fid, "storage_key", key], check=True,
                           capture_output=True)
        def metrics_with_both():
            text = urllib.request.urlopen(base + "/metrics", timeout=2).read().decode()
            return text if 'outcome="partial"' in text and 'outcome="done"' in text else None
        return eventually("both files counted", metrics_with_both)
    finally:
        stop_all(procs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingestd", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    mon = os.path.join(args.source, "docker", "monitoring")
    rules = os.path.join(mon, "alert-rules.yaml")
    r = subprocess.run(["promtool", "check", "rules", rules], capture_output=True, text=True)
    check(r.returncode == 0, f"promtool check rules {rules}: {r.stdout.strip()} {r.stderr.strip()}")
    exprs = dashboard_exprs(os.path.join(mon, "grafana-dashboard.json"))
    import yaml
    for group in yaml.safe_load(open(rules))["groups"]:
        exprs += [rule["expr"] for rule in group["rules"]]
    sm = list(yaml.safe_load_all(open(os.path.join(mon, "servicemonitor.yaml"))))
    check(any(d.get("kind") == "ServiceMonitor" and d["spec"]["endpoints"][0]["path"] == "/metrics" for d in sm),
          "a ServiceMonitor scrapes /metrics")
    with tempfile.TemporaryDirectory(prefix="monitoring-") as work:
        text = worker_metrics(args.ingestd, work)
    r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    check(r.returncode == 0, f"promtool check metrics on a real /metrics: {r.stdout.strip()} {r.stderr.strip()}")
    exported = exported_names(text)
    for expr in exprs:
        for name in sorted(metric_names(expr)):
            check(name in exported, f"{name} (queried by {expr.strip()[:60]!r}) is in /metrics")
    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())

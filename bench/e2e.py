#!/usr/bin/python3
"""End-to-end driver for bench/run.sh: ingestd's worker or the Python peer on the same files.

  e2e.py ingestd --bin B --port P --files-dir D --store S --concurrency C --ocr auto|off --out PREFIX
  e2e.py peer    --port P --files-dir D --workers W --ocr on|off --out PREFIX
  e2e.py tiny    --bin B --port P --store S --count 3000 --out PREFIX
  e2e.py soak    --bin B --port P --files-dir D --store S --count 10000 --out PREFIX
  e2e.py reupload --bin B --port P --store S --file F --out PREFIX

Each mode writes PREFIX.json (one summary object) and prints it on one line.
- files/s = jobs / (last finish - first enqueue), as the peer's bench.py counts it;
- latency = finish - enqueue per job (enqueue: our clock just before the XADD batch;
  finish: metadata finished_at for ingestd, t_end for the peer);
- peak PSS of the worker process and all its descendants, sampled every 0.25 s
  (for the peer: every worker.py process, without the driver and its redis-server);
- Redis calls per job: `INFO commandstats` deltas, the driver's own XADDs taken out;
  completion is watched on the `<prefix>status` channel, which costs no command.
Needs /usr/bin/python3 with python3-redis (the peer's modules).
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

import redis

PREFIX = "ingest:"
STREAM = "ingest:uploads"


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def tree_pids(root, exclude_names=()):
    """Pids of root and all its descendants (from /proc), minus processes named in exclude_names."""
    parent, name = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
            r = s.rindex(")")
            name[int(d)] = s[s.index("(") + 1:r]
            parent[int(d)] = int(s[r + 2:].split()[1])
        except (OSError, ValueError):
            pass
    out = []
    for p in parent:
        j, n = p, 0
        while j != root and j in parent and n < 64:
            j, n = parent[j], n + 1
        if j == root and name.get(p) not in exclude_names:
            out.append(p)
    return out


def parent_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def mem_of(pids):
    """(PSS KiB, RSS KiB) summed over pids."""
    pss = rss = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1])
                    elif line.startswith("Rss:"):
                        rss += int(line.split()[1])
        except OSError:
            pass
    return pss, rss


class Sampler(threading.Thread):
    """Samples the PSS/RSS of a process tree; optionally writes every sample to a CSV."""

    def __init__(self, root, period=0.25, csv_path=None, exclude=(), filter_name=None):
        super().__init__(daemon=True)
        self.root, self.period, self.csv_path = root, period, csv_path
        self.exclude, self.filter_name = exclude, filter_name
        self.peak_pss = self.peak_rss = 0
        self.samples = []  # (t, pss, rss, nprocs)
        self.stop_ev = threading.Event()
        self.t0 = time.time()

    def run(self):
        f = open(self.csv_path, "w") if self.csv_path else None
        if f:
            f.write("t_s,pss_kib,rss_kib,processes,done\n")
        while not self.stop_ev.is_set():
            pids = tree_pids(self.root, self.exclude)
            if self.filter_name:
                pids = [p for p in pids if self.filter_name(p)]
            pss, rss = mem_of(pids)
            if pids:
                self.peak_pss, self.peak_rss = max(self.peak_pss, pss), max(self.peak_rss, rss)
                t = time.time() - self.t0
                self.samples.append((t, pss, rss, len(pids)))
                if f:
                    f.write(f"{t:.2f},{pss},{rss},{len(pids)},{getattr(self, 'done', 0)}\n")
                    f.flush()
            self.stop_ev.wait(self.period)
        if f:
            f.close()

    def stop(self):
        self.stop_ev.set()
        self.join()


def proc_cpu(pid):
    """user+sys CPU seconds of a process, its threads and its waited-for children."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            v = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in v[11:15]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def redis_cpu(r):
    c = r.info("cpu")
    return c["used_cpu_user"] + c["used_cpu_sys"]


def commandstats(r):
    return {k[len("cmdstat_"):] if k.startswith("cmdstat_") else k: v["calls"]
            for k, v in r.info("commandstats").items()}


def stats_delta(before, after):
    d = {k: after.get(k, 0) - before.get(k, 0) for k in after}
    return {k: v for k, v in sorted(d.items(), key=lambda kv: -kv[1]) if v}


def parse_ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def start_worker(args, extra_env):
    env = dict(os.environ)
    env.update({"INGEST_REDIS_URL": f"redis://127.0.0.1:{args.port}/0",
                "INGEST_STORAGE_ROOT": args.store, "INGEST_HTTP_ADDR": "off",
                "INGEST_CONSUMER": f"bench-{os.getpid()}"})
    env.update(extra_env)
    log = open(args.out + ".worker.log", "w")
    wrap = args.wrap.split() if args.wrap else []
    p = subprocess.Popen(wrap + [args.bin, "worker"], env=env, stdout=log, stderr=subprocess.STDOUT)
    p.wrapped = bool(wrap)
    r = redis.Redis(host="127.0.0.1", port=args.port, decode_responses=True)
    for _ in range(200):  # the worker creates its group at start: wait for it (10 s)
        try:
            if r.exists(STREAM) and r.xinfo_groups(STREAM):
                break
        except redis.ResponseError:
            pass
        if p.poll() is not None:
            raise RuntimeError(f"worker exited with {p.returncode}, see {args.out}.worker.log")
        time.sleep(0.05)
    time.sleep(0.3)
    return p


def stop_worker(p):
    # a wrapper (strace) detaches on SIGTERM and leaves its tracee running: signal the
    # wrapped worker itself too (only its direct children: helpers are the worker's to stop)
    for pid in (tree_pids(p.pid) if getattr(p, "wrapped", False) else []):
        if pid != p.pid and parent_of(pid) == p.pid:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def run_jobs(r, jobs, deadline, sampler=None):
    """Appends the events (one pipelined batch), waits on the status channel until each is
    final. jobs: list of (file_id, storage_key). Returns (t_enq per id, set of final ids)."""
    ps = r.pubsub(ignore_subscribe_messages=True)
    ps.subscribe(PREFIX + "status")
    while ps.get_message(timeout=0.1) is not None:
        pass
    t_enq = {}
    pipe = r.pipeline(transaction=False)
    for i, (fid, key) in enumerate(jobs):
        pipe.xadd(STREAM, {"file_id": fid, "storage_key": key})
        if i % 1000 == 999:
            now = time.time()
            pipe.execute()
            for f, _k in jobs[i - 999:i + 1]:
                t_enq[f] = now
    now = time.time()
    pipe.execute()
    for f, _k in jobs:
        t_enq.setdefault(f, now)
    want, finals = set(t_enq), set()
    end = time.time() + deadline
    while finals != want and time.time() < end:
        m = ps.get_message(timeout=1.0)
        if m is None:
            continue
        try:
            d = json.loads(m["data"])
        except ValueError:
            continue
        if d.get("status") in ("done", "failed") and d.get("file_id") in want:
            finals.add(d["file_id"])
            if sampler is not None:
                sampler.done = len(finals)
    ps.close()
    return t_enq, finals


def read_meta(r, ids):
    pipe = r.pipeline(transaction=False)
    for fid in ids:
        pipe.hmget(PREFIX + "file:" + fid, "status", "started_at", "finished_at", "extraction_status",
                   "thumbnail_status", "error_code")
    return dict(zip(ids, pipe.execute()))


def summarise(t_enq, meta, extra):
    fin, lat, svc, failed, bad_steps = [], [], [], 0, 0
    for fid, m in meta.items():
        st, sa, fa, es, ts, ec = m
        if st not in ("done", "failed") or not fa:
            continue
        failed += st == "failed"
        bad_steps += es == "failed" or ts == "failed"
        f = parse_ts(fa)
        fin.append(f)
        lat.append(f - t_enq[fid])
        if sa:
            svc.append(f - parse_ts(sa))
    t0 = min(t_enq.values())
    wall = (max(fin) - t0) if fin else float("nan")
    s = {"jobs": len(t_enq), "done": len(fin), "failed": failed, "step_failed": bad_steps,
         "wall_s": round(wall, 3), "files_per_s": round(len(fin) / wall, 3) if fin else 0,
         "e2e_p50_s": round(pct(lat, 50), 3), "e2e_p99_s": round(pct(lat, 99), 3),
         "service_p50_s": round(pct(svc, 50), 4), "service_p99_s": round(pct(svc, 99), 4)}
    s.update(extra)
    return s


def stage_files(files_dir, store, sub):
    """Copies every file of files_dir into the store; returns [(file_id, storage_key)]."""
    os.makedirs(os.path.join(store, sub), exist_ok=True)
    jobs = []
    for i, fn in enumerate(sorted(os.listdir(files_dir))):
        key = f"{sub}/{i:06d}.blob"
        shutil.copyfile(os.path.join(files_dir, fn), os.path.join(store, key))
        jobs.append((f"{sub}-{i:06d}", key))
    return jobs


def emit(args, s):
    with open(args.out + ".json", "w") as f:
        json.dump(s, f, indent=1)
    print(json.dumps(s), flush=True)


def mode_ingestd(args):
    r = redis.Redis(host="127.0.0.1", port=args.port, decode_responses=True)
    r.flushall()
    jobs = stage_files(args.files_dir, args.store, "e2e")
    p = start_worker(args, {"INGEST_CONCURRENCY": str(args.concurrency), "INGEST_OCR_MODE": args.ocr})
    sampler = Sampler(p.pid, csv_path=args.out + ".mem.csv")
    sampler.start()
    before, c0 = commandstats(r), proc_cpu(p.pid)
    t_enq, finals = run_jobs(r, jobs, args.deadline, sampler)
    after, c1 = commandstats(r), proc_cpu(p.pid)
    sampler.stop()
    stop_worker(p)
    delta = stats_delta(before, after)
    delta["xadd"] = delta.get("xadd", 0) - len(jobs)
    calls = sum(v for k, v in delta.items() if k not in ("subscribe", "info"))
    meta = read_meta(r, [j[0] for j in jobs])
    emit(args, summarise(t_enq, meta, {
        "side": "ingestd", "concurrency": args.concurrency, "ocr": args.ocr,
        "worker_cpu_s": round(c1 - c0, 2),
        "peak_pss_kib": sampler.peak_pss, "peak_rss_kib": sampler.peak_rss,
        "redis_calls_per_job": round(calls / max(1, len(jobs)), 2), "redis_calls": delta}))


def mode_peer(args):
    env = dict(os.environ, PEER_OCR=args.ocr)
    outdir = args.out + ".peer"
    peer_dir = os.path.join(os.path.dirname(os.path.abspath(args.peer)))
    p = subprocess.Popen(["/usr/bin/python3", args.peer, "--corpus", args.files_dir, "-N", "1",
                          "--workers", str(args.workers), "--port", str(args.port), "--out", outdir,
                          "--deadline", str(args.deadline)],
                         cwd=peer_dir, env=env, stdout=open(args.out + ".peer.log", "w"), stderr=subprocess.STDOUT)

    def is_worker(pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cl = f.read()
            return b"bench.py" not in cl and b"redis-server" not in cl
        except OSError:
            return False

    sampler = Sampler(p.pid, csv_path=args.out + ".mem.csv", filter_name=is_worker)
    sampler.start()
    p.wait()
    sampler.stop()
    s = {}
    for fn in os.listdir(outdir) if os.path.isdir(outdir) else []:
        if fn.endswith(".summary.json"):
            with open(os.path.join(outdir, fn)) as f:
                s = json.load(f)
    out = {"side": "peer", "workers": args.workers, "ocr": args.ocr, "jobs": s.get("enqueued", 0),
           "done": s.get("done", 0), "failed": s.get("errors", 0), "wall_s": s.get("wall_s"),
           "files_per_s": s.get("files_per_s", 0), "e2e_p50_s": s.get("e2e_p50_s"),
           "e2e_p99_s": s.get("e2e_p99_s"), "service_p50_s": s.get("service_p50_s"),
           "service_p99_s": s.get("service_p99_s"),
           "peak_pss_kib": sampler.peak_pss, "peak_rss_kib": sampler.peak_rss}
    emit(args, out)


def mode_tiny(args):
    r = redis.Redis(host="127.0.0.1", port=args.port, decode_responses=True)
    r.flushall()
    os.makedirs(os.path.join(args.store, "tiny"), exist_ok=True)
    jobs = []
    for j in range(args.count):
        key = f"tiny/{j}.txt"
        with open(os.path.join(args.store, key), "w") as f:
            f.write(f"tiny {j}\n")
        jobs.append((f"tiny{j}", key))
    p = start_worker(args, {"INGEST_CONCURRENCY": str(args.concurrency)})
    before, c0, rc0 = commandstats(r), proc_cpu(p.pid), redis_cpu(r)
    t_enq, finals = run_jobs(r, jobs, args.deadline)
    after, c1, rc1 = commandstats(r), proc_cpu(p.pid), redis_cpu(r)
    stop_worker(p)
    delta = stats_delta(before, after)
    delta["xadd"] = delta.get("xadd", 0) - len(jobs)
    calls = sum(v for k, v in delta.items() if k not in ("subscribe", "info"))
    meta = read_meta(r, [j[0] for j in jobs])
    s = summarise(t_enq, meta, {"side": "ingestd", "mode": "tiny", "concurrency": args.concurrency,
                                "worker_cpu_ms_per_job": round(1000 * (c1 - c0) / len(jobs), 3),
                                "redis_cpu_ms_per_job": round(1000 * (rc1 - rc0) / len(jobs), 3),
                                "redis_calls_per_job": round(calls / len(jobs), 2), "redis_calls": delta})
    s["jobs_per_s"] = s["files_per_s"]
    emit(args, s)


def mode_soak(args):
    """args.count mixed jobs cycling over the staged files; memory of the worker tree every second."""
    r = redis.Redis(host="127.0.0.1", port=args.port, decode_responses=True)
    r.flushall()
    base = stage_files(args.files_dir, args.store, "soak")
    jobs = [(f"soak-{i:06d}", base[i % len(base)][1]) for i in range(args.count)]
    p = start_worker(args, {"INGEST_CONCURRENCY": str(args.concurrency), "INGEST_OCR_MODE": args.ocr})
    sampler = Sampler(p.pid, period=1.0, csv_path=args.out + ".csv")
    sampler.start()
    t_enq, finals = run_jobs(r, jobs, args.deadline, sampler)
    sampler.stop()
    stop_worker(p)
    meta = read_meta(r, [j[0] for j in jobs])
    smp = sampler.samples
    # growth: last minute vs first minute after a warm-up (10 % of the run, at least 30 s);
    # short runs fall back to the first and last quarter after warm-up
    growth = {}
    if smp:
        dur = smp[-1][0]
        warm = max(30.0, 0.1 * dur)
        win = 60.0 if dur - warm >= 180 else max(1.0, (dur - warm) / 4)
        first = [x for x in smp if warm <= x[0] < warm + win]
        last = [x for x in smp if x[0] >= dur - win]
        if first and last and dur - warm > 2 * win - 1:
            fp, lp = statistics.mean(x[1] for x in first), statistics.mean(x[1] for x in last)
            fr, lr = statistics.mean(x[2] for x in first), statistics.mean(x[2] for x in last)
            growth = {"window_s": round(win, 1), "warmup_s": round(warm, 1),
                      "first_pss_kib": round(fp), "last_pss_kib": round(lp),
                      "pss_growth_pct": round(100 * (lp - fp) / fp, 2),
                      "first_rss_kib": round(fr), "last_rss_kib": round(lr),
                      "rss_growth_pct": round(100 * (lr - fr) / fr, 2)}
    emit(args, summarise(t_enq, meta, {"side": "ingestd", "mode": "soak", "concurrency": args.concurrency,
                                       "ocr": args.ocr, "peak_pss_kib": sampler.peak_pss,
                                       "peak_rss_kib": sampler.peak_rss, "samples": len(smp), **growth}))


def mode_reupload(args):
    """One file, then the same bytes under a new id: the second must reuse the first's results."""
    r = redis.Redis(host="127.0.0.1", port=args.port, decode_responses=True)
    r.flushall()
    os.makedirs(os.path.join(args.store, "re"), exist_ok=True)
    for k in ("a", "b"):
        shutil.copyfile(args.file, os.path.join(args.store, f"re/{k}.blob"))
    p = start_worker(args, {"INGEST_CONCURRENCY": "1", "INGEST_OCR_MODE": args.ocr})
    out = {"side": "ingestd", "mode": "reupload", "file": os.path.basename(args.file)}
    for k in ("a", "b"):
        t_enq, _ = run_jobs(r, [(f"re-{k}", f"re/{k}.blob")], args.deadline)
        m = r.hgetall(PREFIX + f"file:re-{k}")
        out[f"{k}_latency_s"] = round(parse_ts(m["finished_at"]) - t_enq[f"re-{k}"], 4) if m.get("finished_at") else None
        out[f"{k}_duration_ms"] = m.get("duration_ms")
        out[f"{k}_deduplicated_from"] = m.get("deduplicated_from", "")
    stop_worker(p)
    if out.get("a_latency_s") and out.get("b_latency_s"):
        out["ratio"] = round(out["b_latency_s"] / out["a_latency_s"], 4)
    emit(args, out)


def enqueue_one(r, fid, key, t_enq):
    r.xadd(STREAM, {"file_id": fid, "storage_key": key})
    t_enq[fid] = time.time()


def mode_behind(args):
    """Small images behind a queue of scans (issue 20): args.count copies of args.file (a scanned
    PDF) are queued first, then the small images of args.files_dir one every args.interval
    seconds while the worker works on the scans. Reports each small image's enqueue->done
    latency and the scans' total time."""
    r = redis.Redis(host="127.0.0.1", port=args.port, decode_responses=True)
    r.flushall()
    os.makedirs(os.path.join(args.store, "behind"), exist_ok=True)
    scans = []
    for i in range(args.count):
        key = f"behind/scan-{i:04d}.pdf"
        shutil.copyfile(args.file, os.path.join(args.store, key))
        with open(os.path.join(args.store, key), "a") as f:
            f.write(f"\n%bench-copy-{i}\n")  # unique bytes: no content-hash reuse
        scans.append((f"scan-{i:04d}", key))
    smalls = stage_files(args.files_dir, args.store, "small")
    p = start_worker(args, {"INGEST_CONCURRENCY": str(args.concurrency), "INGEST_OCR_MODE": args.ocr,
                            "INGEST_LOOKAHEAD": str(args.lookahead)})
    ps = r.pubsub(ignore_subscribe_messages=True)
    ps.subscribe(PREFIX + "status")
    while ps.get_message(timeout=0.1) is not None:
        pass
    t_enq, finals = {}, set()
    pipe = r.pipeline(transaction=False)
    for fid, key in scans:
        pipe.xadd(STREAM, {"file_id": fid, "storage_key": key})
    t0 = time.time()
    pipe.execute()
    for fid, _k in scans:
        t_enq[fid] = t0
    pending, next_at, end = list(smalls), t0 + args.interval, t0 + args.deadline
    scan_ids = {fid for fid, _k in scans}
    while time.time() < end and ((pending and not scan_ids <= finals) or len(finals) < len(t_enq)):
        if pending and time.time() >= next_at and not scan_ids <= finals:
            enqueue_one(r, *pending.pop(0), t_enq)
            next_at += args.interval
        m = ps.get_message(timeout=0.05)
        if m is None:
            continue
        try:
            d = json.loads(m["data"])
        except ValueError:
            continue
        if d.get("status") in ("done", "failed") and d.get("file_id") in t_enq:
            finals.add(d["file_id"])
    ps.close()
    stop_worker(p)
    meta = read_meta(r, list(t_enq))
    small_ids = [fid for fid, _k in smalls if fid in t_enq]
    lat = [parse_ts(meta[f][2]) - t_enq[f] for f in small_ids if meta[f][2]]
    scan_fin = [parse_ts(meta[f][2]) for f, _k in scans if meta[f][2]]
    emit(args, {"side": "ingestd", "lookahead": args.lookahead, "scans": len(scans),
                "scans_done": sum(1 for f, _k in scans if meta[f][0] == "done"),
                "scans_wall_s": round(max(scan_fin) - t0, 2) if scan_fin else float("nan"),
                "small_sent": len(small_ids), "small_done": len(lat),
                "small_p50_s": round(pct(lat, 50), 3), "small_p99_s": round(pct(lat, 99), 3),
                "small_max_s": round(max(lat), 3) if lat else float("nan")})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["ingestd", "peer", "tiny", "soak", "reupload", "behind"])
    ap.add_argument("--bin")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--files-dir")
    ap.add_argument("--file")
    ap.add_argument("--store")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--ocr", default="auto")
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--interval", type=float, default=1.0, help="behind: seconds between small images")
    ap.add_argument("--lookahead", type=int, default=32, help="behind: the worker's INGEST_LOOKAHEAD")
    ap.add_argument("--deadline", type=float, default=1800)
    ap.add_argument("--peer", default="/work/shared/peer/bench.py")
    ap.add_argument("--wrap", default="", help="command prefix for the worker, e.g. strace options")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    {"ingestd": mode_ingestd, "peer": mode_peer, "tiny": mode_tiny, "soak": mode_soak,
     "reupload": mode_reupload, "behind": mode_behind}[args.mode](args)


if __name__ == "__main__":
    main()

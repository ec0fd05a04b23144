#!/usr/bin/env bash
# gc_bench.sh [HASHES]: time and peak memory of `ingestd gc` over HASHES metadata hashes
# (default 100000) in a private redis-server on a free loopback port, with a real store:
#   90% finished files (3 thumbnails + spilled text named in their metadata; outputs on disk
#       for the first 10,000), 10% tombstones deleted in 2020 whose originals are on disk,
#   plus 10,000 orphaned thumbnails that no metadata names.
# Hashes go in with `redis-cli --pipe`. Prints /usr/bin/time -v's figures of one `gc --grace 3600`
# (the removal run) and of a second one (nothing left to remove: the pure scan).
#   BIN=build-rel/ingestd bench/gc_bench.sh 100000
set -euo pipefail
N=${1:-100000}
BIN=${BIN:-$PWD/build/ingestd}
WORK=$(mktemp -d /tmp/gc-bench.XXXXXX)
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
RPID=$!
trap 'kill $RPID 2>/dev/null; wait $RPID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do redis-cli -p "$PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
STORE=$WORK/store
python3 - "$N" "$STORE" >"$WORK/load.resp" <<'PY'
import os, sys
n, store = int(sys.argv[1]), sys.argv[2]
out = sys.stdout.buffer
def cmd(*args):
    b = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        b.append(b"$%d\r\n%s\r\n" % (len(a), a))
    out.write(b"".join(b))
def put(key, data):
    path = os.path.join(store, key)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f: f.write(data)
text = "lorem ipsum dolor sit amet " * 8
for i in range(n):
    fid = "f%07d" % i
    if i % 10 == 9:
        cmd("HSET", "ingest:file:" + fid, "status", "deleted", "deleted_at", "2020-01-01T00:00:00.000Z",
            "event_id", "1-%d" % i, "content_hash", "%064x" % i, "name", fid + ".pdf", "storage_key", "up/" + fid)
        put("up/" + fid, b"original bytes")
        continue
    thumbs = ["thumbnails/%s/%d.webp" % (fid, s) for s in (72, 144, 288)]
    cmd("HSET", "ingest:file:" + fid, "status", "done", "event_id", "1-%d" % i, "content_hash", "%064x" % i,
        "storage_key", "up/" + fid, "extracted_text", text, "extraction_status", "done", "thumbnail_status", "done",
        "thumbnail_72_key", thumbs[0], "thumbnail_144_key", thumbs[1], "thumbnail_288_key", thumbs[2],
        "extracted_text_key", "text/%s.txt" % fid, "pipeline_version", "ingestd 0.1.0")
    if i < 10000:
        for t in thumbs: put(t, b"RIFF0000WEBP")
        put("text/%s.txt" % fid, text.encode())
for i in range(10000):
    put("thumbnails/orphan%05d/72.webp" % i, b"RIFF0000WEBP")
PY
redis-cli -p "$PORT" --pipe <"$WORK/load.resp" | tail -1
echo "hashes: $(redis-cli -p "$PORT" DBSIZE); files: $(find "$STORE" -type f | wc -l); redis used_memory: $(redis-cli -p "$PORT" INFO memory | grep '^used_memory_human' | tr -d '\r')"
for run in removal scan-only; do
  /usr/bin/time -v env INGEST_REDIS_URL="redis://127.0.0.1:$PORT/0" INGEST_STORAGE_ROOT="$STORE" INGEST_LOG_LEVEL=warn \
    "$BIN" gc --grace 3600 >"$WORK/gc-$run.json" 2>"$WORK/gc-$run.time"
  echo "$run: $(wc -l <"$WORK/gc-$run.json") removals; $(grep -E 'Elapsed \(wall|Maximum resident' "$WORK/gc-$run.time" | sed 's/^\s*//' | paste -sd';')"
done

#!/usr/bin/env bash
# The object store against the filesystem store and against curl, on loopback (s3rver):
#   1. reading and hashing one large object: a worker's job time (duration_ms, INGEST_REUSE=off)
#      vs `curl URL | openssl dgst -sha256` of the same object (wall time), RUNS rounds interleaved;
#   2. end to end without OCR: the same FILES files through one worker on s3:// and on a folder,
#      files/s ratio.
# Both ratios are printed per round as median and range (the machine is noisy).
# Usage: bench/s3_read.sh [--bin PATH]   Environment: SIZE_MB (default 1024), RUNS (3), FILES (dir).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd); ROOT=$(cd "$HERE/.." && pwd)
BIN=$ROOT/build/ingestd; [ "${1:-}" = --bin ] && BIN=$2
SIZE_MB=${SIZE_MB:-1024}; RUNS=${RUNS:-3}; FILES=${FILES:-$ROOT/../shared/corpus/img}
S3RVER=$ROOT/tests/s3/node_modules/.bin/s3rver
[ -x "$S3RVER" ] || { echo "s3rver missing: scripts/install-deps.sh" >&2; exit 2; }
W=$(mktemp -d /tmp/ingestd-s3bench.XXXXXX); PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$W"; }
trap cleanup EXIT
port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
SP=$(port); RP=$(port)
NODE_OPTIONS=--openssl-legacy-provider "$S3RVER" -d "$W/s3" -a 127.0.0.1 -p "$SP" --configure-bucket uploads --silent &
PIDS+=($!)
redis-server --port "$RP" --bind 127.0.0.1 --save '' --dir "$W" >/dev/null &
PIDS+=($!)
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:$SP
for _ in $(seq 100); do curl -s -o /dev/null "$AWS_ENDPOINT_URL/" && redis-cli -p "$RP" ping >/dev/null 2>&1 && break; sleep 0.1; done
put() { curl -sf --aws-sigv4 aws:amz:us-east-1:s3 -u S3RVER:S3RVER -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -o /dev/null -T "$1" "$AWS_ENDPOINT_URL/uploads/$2"; }
rc() { redis-cli -p "$RP" "$@"; }
wait_done() { for _ in $(seq 6000); do s=$(rc HGET "ingest:file:$1" status); [ "$s" = done ] || [ "$s" = failed ] && return; sleep 0.05; done; }
start_worker() { # root
  INGEST_REDIS_URL=redis://127.0.0.1:$RP/0 INGEST_STORAGE_ROOT=$1 INGEST_HTTP_ADDR=off INGEST_OCR_MODE=off \
    INGEST_REUSE=off INGEST_CONCURRENCY=2 INGEST_MAX_FILE_BYTES=$((4 << 30)) OMP_THREAD_LIMIT=1 "$BIN" worker >>"$W/worker.log" 2>&1 &
  WPID=$!; PIDS+=($WPID); sleep 1
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# Per-round ratios (reference time / ingestd time): "median X (range A-B, N rounds)".
ratios() { paste "$1" "$2" | awk '{print $1 / $2}' | sort -g | awk '{a[NR]=$1}
  END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "median %.2f (range %.2f-%.2f, %d rounds)", m, a[1], a[NR], NR}'; }

echo "== reading and hashing a ${SIZE_MB} MiB object (loopback s3rver)"
head -c $((SIZE_MB << 20)) /dev/urandom >"$W/big.bin"; put "$W/big.bin" in/big.bin; rm -f "$W/big.bin"
start_worker s3://uploads/in
KEEP=$(mktemp -d "${TMPDIR:-/tmp}/ingestd-s3keep.XXXXXX"); PIDS+=(); trap 'cleanup; rm -rf "$KEEP"' EXIT
for r in $(seq "$RUNS"); do
  t0=$(date +%s.%N); curl -s "$AWS_ENDPOINT_URL/uploads/in/big.bin" | openssl dgst -sha256 >/dev/null; t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l >>"$W/curl.t"
  # The same, keeping the bytes in a file beside the worker's spool (as any worker must, to parse them).
  t0=$(date +%s.%N); curl -s "$AWS_ENDPOINT_URL/uploads/in/big.bin" | tee "$KEEP/keep.bin" | openssl dgst -sha256 >/dev/null
  t1=$(date +%s.%N); rm -f "$KEEP/keep.bin"; echo "$t1 - $t0" | bc -l >>"$W/keep.t"
  rc XADD ingest:uploads '*' file_id "big$r" storage_key big.bin >/dev/null; wait_done "big$r"
  echo "$(rc HGET "ingest:file:big$r" duration_ms) / 1000" | bc -l >>"$W/ingestd.t"
  [ "$(rc HGET "ingest:file:big$r" status)" = done ] || echo "big$r: $(rc HGET "ingest:file:big$r" error)"
done
C=$(median <"$W/curl.t"); I=$(median <"$W/ingestd.t")
printf 'curl | openssl dgst: %.2f s   ingestd (HEAD, GET into spool, hash, sniff): %.2f s (medians)\n' "$C" "$I"
echo "hash 1 GiB ratio (curl+openssl time / ingestd time): $(ratios "$W/curl.t" "$W/ingestd.t") target >= 0.9"
echo "  same, the reference keeping the bytes in \${TMPDIR:-/tmp} as the spool does (curl | tee FILE | openssl dgst):" \
  "$(ratios "$W/keep.t" "$W/ingestd.t")"
kill -TERM "$WPID"; wait "$WPID" 2>/dev/null

echo "== end to end without OCR: files of $FILES, object store vs filesystem"
mapfile -t files < <(find "$FILES" -type f | sort)
mkdir -p "$W/fs"; n=${#files[@]}
for i in "${!files[@]}"; do cp "${files[$i]}" "$W/fs/f$i"; put "${files[$i]}" "in/f$i"; done
run_e2e() { # root tag -> seconds
  start_worker "$1"; local t0; t0=$(date +%s.%N)
  for i in $(seq 0 $((n - 1))); do rc XADD ingest:uploads '*' file_id "$2$i" storage_key "f$i" >/dev/null; done
  for i in $(seq 0 $((n - 1))); do wait_done "$2$i"; done
  echo "$(date +%s.%N) - $t0" | bc -l; kill -TERM "$WPID"; wait "$WPID" 2>/dev/null
}
for r in $(seq "$RUNS"); do
  run_e2e "$W/fs" "fs${r}_" >>"$W/fs.t"; run_e2e s3://uploads/in "s3${r}_" >>"$W/s3.t"
done
F=$(median <"$W/fs.t"); S=$(median <"$W/s3.t")
printf '%d files: filesystem %.2f s (%.1f files/s)   object store %.2f s (%.1f files/s) (medians)\n' \
  "$n" "$F" "$(echo "$n / $F" | bc -l)" "$S" "$(echo "$n / $S" | bc -l)"
echo "end to end files/s ratio (object store / filesystem): $(ratios "$W/fs.t" "$W/s3.t") target >= 0.8"

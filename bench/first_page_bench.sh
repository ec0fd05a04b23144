#!/usr/bin/env bash
# What the thumbnails add to a job that OCRs a scanned PDF, for two builds in the same loop:
# (text+thumbnails) - (text) per file, median of RUNS alternated runs. Before the first page
# was shared (extractors/page_share), the thumbnailer opened and drew page 1 again, decoding
# its scanned image a second time; since, it takes the drawing OCR made.
#   bench/first_page_bench.sh BEFORE_INGESTD AFTER_INGESTD [RUNS]    (files from ../shared/corpus)
set -euo pipefail
before=$1 after=$2 runs=${3:-5}
corpus=$(cd "$(dirname "$0")/../.." && pwd)/shared/corpus
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export OMP_THREAD_LIMIT=1
seconds() {  # seconds BIN STEPS FILE
  local t0 t1; t0=$(date +%s.%N)
  "$1" process --steps "$2" --out "$work/out" "$3" >/dev/null 2>&1
  t1=$(date +%s.%N); echo "$t1 - $t0" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for f in pdf/scanned/linn.pdf pdf/scanned/c02-22.pdf pdf/scanned/ccitt.pdf pdf/text/masks.pdf; do
  [ -f "$corpus/$f" ] || { echo "$f: not in the corpus"; continue; }
  for _ in $(seq "$runs"); do
    for bin in "$before" "$after"; do
      both=$(seconds "$bin" text,thumbnails "$corpus/$f")
      text=$(seconds "$bin" text "$corpus/$f")
      echo "$both - $text" | bc >>"$work/$(echo "$bin" | md5sum | cut -c1-8)"
    done
  done
  b=$(median <"$work/$(echo "$before" | md5sum | cut -c1-8)")
  a=$(median <"$work/$(echo "$after" | md5sum | cut -c1-8)")
  rm -f "$work"/????????
  printf '%s: thumbnails add %.3fs before, %.3fs after (median of %d)\n' "$f" "$b" "$a" "$runs"
done

#!/usr/bin/env bash
# Thumbnails: all three sizes of a 24 MP JPEG (progressive and baseline) against one
# `vipsthumbnail -s 288` call, both as whole processes, median of RUNS after a warm-up;
# plus the in-process time and the peak RSS of our run.
#   bench/thumbnails_bench.sh [HARNESS] [RUNS]
# HARNESS is the thumbnails_bench program (tests/thumbnails), default build*/tests/thumbnails/thumbnails_bench.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$(ls "$here"/build*/tests/thumbnails/thumbnails_bench 2>/dev/null | head -n1)}
runs=${2:-5}
corpus=${CORPUS:-$here/../shared/corpus}
[ -x "$bin" ] || { echo "no thumbnails_bench harness (build target thumbnails_bench)" >&2; exit 2; }
work=$(mktemp -d /tmp/thumbs-bench.XXXXXX); trap 'rm -rf "$work"' EXIT
src=$corpus/img/jpeg/flower.jpg
vips resize "$src" "$work/p.v" "$(python3 -c "import sys; print(6000/int(sys.argv[1]))" "$(vipsheader -f width "$src")")"
vips jpegsave "$work/p.v" "$work/progressive.jpg" --Q 90 --interlace
vips jpegsave "$work/p.v" "$work/baseline.jpg" --Q 90
mkdir -p "$work/out"
med() {  # med CMD...: median wall seconds of $runs runs after one warm-up
  local ts=() a b
  "$@" >/dev/null 2>&1
  for _ in $(seq "$runs"); do a=$(date +%s.%N); "$@" >/dev/null 2>&1; b=$(date +%s.%N); ts+=("$(echo "$b - $a" | bc -l)"); done
  printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.3f\n", a[int((NR+1)/2)]}'
}
echo "libvips $(vips --version), $(nproc) cores, $(vipsheader "$work/baseline.jpg")"
for f in progressive baseline; do
  p=$work/$f.jpg
  ours=$(med "$bin" "$p" 1 "$work/out")
  theirs=$(med vipsthumbnail -s 288 -o "$work/v.webp[Q=80]" "$p")
  inproc=$("$bin" "$p" "$runs" | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
  rss=$( { /usr/bin/time -f '%M' "$bin" "$p" 1 "$work/out" >/dev/null; } 2>&1 | tail -n1)
  vrss=$( { /usr/bin/time -f '%M' vipsthumbnail -s 288 -o "$work/v.webp[Q=80]" "$p" >/dev/null; } 2>&1 | tail -n1)
  printf '%-11s three sizes %.3fs (in-process %sms, peak RSS %s KiB) | one vipsthumbnail %.3fs (peak RSS %s KiB) | ratio %s\n' \
    "$f" "$ours" "$inproc" "$rss" "$theirs" "$vrss" "$(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$ours" "$theirs")"
done

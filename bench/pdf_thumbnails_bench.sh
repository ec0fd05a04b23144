#!/usr/bin/env bash
# PDF thumbnails against vipsthumbnail (issue 17): PowerPoint-like slides whose shape is a 2 x 2
# image with a 1-bit /SMask stencil of growing size (bench/pdf_masks.py), and a page drawing a
# 32768² grey image of compressed zeros. Whole processes, median of RUNS after a warm-up:
# `thumbnails_bench FILE 1` (all three sizes) against one `vipsthumbnail -s 288`.
#   bench/pdf_thumbnails_bench.sh [HARNESS] [RUNS]
# HARNESS is the thumbnails_bench program (tests/thumbnails), default build*/tests/thumbnails/thumbnails_bench.
# Ours either draws the page or refuses it with too_many_pixels (INGEST_MAX_PIXELS, default
# 100 MP of image pixels a page); vipsthumbnail (Poppler's Cairo backend) leaves out, without a
# word, any image or mask wider or taller than 32767 pixels, which is why it is fast on those.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$(ls "$here"/build*/tests/thumbnails/thumbnails_bench 2>/dev/null | head -n1)}
runs=${2:-3}
[ -x "$bin" ] || { echo "no thumbnails_bench harness (build target thumbnails_bench)" >&2; exit 2; }
work=$(mktemp -d /tmp/pdf-thumbs-bench.XXXXXX); trap 'rm -rf "$work"' EXIT
med() {  # med CMD...: median wall seconds of $runs runs after one warm-up
  local ts=() a b
  "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$runs"); do a=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; b=$(date +%s.%N); ts+=("$(echo "$b - $a" | bc -l)"); done
  printf '%s\n' "${ts[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.3f\n", a[int((NR+1)/2)]}'
}
python3 - "$work/zeros.pdf" <<'PY'
import sys, zlib
side = 32768
c = zlib.compressobj(9); chunk = bytes(1 << 20); data = b"".join(c.compress(chunk) for _ in range(side * side >> 20)) + c.flush()
objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length 30 >>\nstream\nq 612 0 0 792 0 0 cm /Im0 Do Q\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (side, side, len(data)) + data + b"\nendstream"]
out = b"%PDF-1.4\n"; offs = []
for i, o in enumerate(objs, 1): offs.append(len(out)); out += b"%d 0 obj\n%s\nendobj\n" % (i, o)
x = len(out); out += b"xref\n0 6\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offs)
out += b"trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % x
open(sys.argv[1], "wb").write(out)
PY
echo "libvips $(vips --version), poppler $(pdftoppm -v 2>&1 | head -n1 | awk '{print $3}'), $(nproc) cores, median of $runs"
printf '%-24s %-22s %-10s %-10s %s\n' file ours ours_s vips_s ratio
for size in "2400 1100" "8000 4500" "12000 6750" "40000 22500"; do
  set -- $size
  python3 "$here/bench/pdf_masks.py" "$work/mask_$1.pdf" "$1" "$2"
done
for f in "$work"/mask_2400.pdf "$work"/mask_8000.pdf "$work"/mask_12000.pdf "$work"/mask_40000.pdf "$work"/zeros.pdf; do
  outcome=$( ("$bin" "$f" 1 2>&1 >/dev/null || true) | cut -d: -f1); outcome=${outcome:-drawn}
  ours=$(med "$bin" "$f" 1)
  theirs=$(med vipsthumbnail -s 288 -o "$work/v.webp[Q=80]" "$f")
  printf '%-24s %-22s %-10s %-10s %s\n' "$(basename "$f") ($(stat -c %s "$f") B)" "$outcome" "$ours" "$theirs" \
    "$(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$ours" "$theirs")"
done

#!/usr/bin/env bash
# fuzz.sh [SECONDS]: build the libFuzzer targets with clang (build-fuzz/) and run each for
# SECONDS (default 60) with seeds from ../shared/corpus. Crashes land in build-fuzz/findings/.
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${CORPUS:-$root/../shared/corpus}
build=$root/build-fuzz
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINGESTD_FUZZ=ON -DINGESTD_TESTS=OFF -DINGESTD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
mkdir -p "$build/findings"
seeds() {  # seeds TARGET DIR: a fresh seed folder for one target
  local d=$2; rm -rf "$d"; mkdir -p "$d"
  case $1 in
    pdf_text) cp "$corpus"/pdf/*/*.pdf "$d/" 2>/dev/null || true ;;
    thumbnails|image_text) cp "$corpus"/img/*/* "$corpus"/ocr/*.png "$d/" 2>/dev/null || true
      [ "$1" = thumbnails ] && cp "$corpus"/pdf/text/trivial.pdf "$d/" 2>/dev/null || true ;;
    plain_text) cp "$corpus"/ocr/*.txt "$d/" 2>/dev/null || true; printf '\xff\xfeh\x00i\x00' >"$d/utf16" ;;
    event) printf 'file_id\0f1\0storage_key\0a/b.blob\0size\0012\0steps\0text' >"$d/e1" ;;
    storage_key) printf 'a/b/c.blob' >"$d/k1"; printf '../x' >"$d/k2" ;;
    helper_channel) printf 'INGH' >"$d/h1" ;;
  esac
}
rc=0
for t in event storage_key helper_channel plain_text pdf_text thumbnails image_text; do
  seeds "$t" "$build/seeds-$t"
  mkdir -p "$build/work-$t"
  echo "== fuzz_$t for ${secs}s"
  if ! OMP_THREAD_LIMIT=1 ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
      "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=1048576 \
      -artifact_prefix="$build/findings/$t-" -print_final_stats=1 \
      "$build/work-$t" "$build/seeds-$t" 2>"$build/fuzz-$t.log"; then
    echo "   FINDING: see $build/fuzz-$t.log and $build/findings/"; rc=1
  fi
  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$build/fuzz-$t.log" | tr '\n' ' '; echo
done
exit $rc

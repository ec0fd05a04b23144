#!/usr/bin/env bash
# fuzz.sh [SECONDS]: build the libFuzzer targets with clang (build-fuzz/) and run each for
# SECONDS (default 60) with seeds from ../shared/corpus. Crashes land in build-fuzz/findings/.
#
# Environment:
#   FUZZ_TARGETS  space-separated targets to run (default: all eight; "cheap" = the four
#                 targets over our own parsers: event storage_key helper_channel plain_text)
#   CORPUS        seed corpus (default ../shared/corpus)
#   FUZZ_JOBS     build parallelism (default 2)
# Exits non-zero when any target crashes, times out, leaks (own-code targets) or exceeds the
# RSS limit; the reproducer is printed. Prints one line per target and a summary line.
set -euo pipefail
secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=${CORPUS:-$root/../shared/corpus}
build=$root/build-fuzz
cheap="event storage_key helper_channel plain_text"
parsers="pdf_text thumbnails image_text documents"
targets=${FUZZ_TARGETS:-$cheap $parsers}
[ "$targets" = cheap ] && targets=$cheap
[ "$targets" = all ] && targets="$cheap $parsers"

t0=$SECONDS; mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINGESTD_FUZZ=ON -DINGESTD_TESTS=OFF -DINGESTD_BENCH=OFF >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
build_targets=()
for t in $targets; do build_targets+=(--target "fuzz_$t"); done
if ! cmake --build "$build" -j"${FUZZ_JOBS:-2}" "${build_targets[@]}" >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log"; echo "fuzz: BUILD FAILED"; exit 1
fi
echo "fuzz: built ${targets// /, } in $((SECONDS - t0))s"
mkdir -p "$build/findings"

seeds() {  # seeds TARGET DIR: a fresh seed folder for one target
  local d=$2; rm -rf "$d"; mkdir -p "$d"
  case $1 in
    # Files over max_len would be truncated by libFuzzer (a PDF loses its xref): skip them.
    pdf_text) find "$corpus"/pdf -name '*.pdf' -size -1024k -exec cp {} "$d/" \; 2>/dev/null || true ;;
    thumbnails|image_text)
      find "$corpus"/img "$corpus"/ocr -type f ! -name '*.txt' -size -1024k -exec cp {} "$d/" \; 2>/dev/null || true
      if [ "$1" = thumbnails ]; then cp "$corpus"/pdf/text/trivial.pdf "$d/" 2>/dev/null || true; fi ;;
    plain_text) cp "$corpus"/ocr/*.txt "$d/" 2>/dev/null || true; printf '\xff\xfeh\x00i\x00' >"$d/utf16"
      printf '\xef\xbb\xbfa\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80' >"$d/utf8" ;;
    documents)  # a DOCX, an ODT, RTF, HTML and an e-mail, written here
      python3 - "$d" <<'PY' || true
import sys, zipfile
d = sys.argv[1]
with zipfile.ZipFile(d + "/a.docx", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("[Content_Types].xml", "<Types>wordprocessingml.document.main</Types>")
    z.writestr("word/document.xml", '<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Hi</w:t><w:tab/></w:r></w:p>'
               '<w:tbl><w:tr><w:tc><w:p><w:r><w:t>c</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>')
with zipfile.ZipFile(d + "/b.odt", "w") as z:
    z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
    z.writestr("content.xml", '<office:document-content xmlns:office="o" xmlns:text="t"><office:body><office:text>'
               '<text:p>x<text:s text:c="3"/>y</text:p></office:text></office:body></office:document-content>')
open(d + "/c.rtf", "w").write("{\\rtf1\\ansi{\\fonttbl{\\f0 A;}}\\u8364? caf\\'e9\\par}")
open(d + "/d.html", "w").write("<p>a &amp; b<script>x</script><table><tr><td>1<td>2</table>")
open(d + "/e.eml", "w").write("From: a@b\nSubject: =?UTF-8?B?w6k=?=\nContent-Type: text/plain\n\nbody\n")
PY
      ;;
    event)
      printf '%s\0' file_id f1 storage_key a/b.blob size 12 steps text >"$d/e1"
      printf '%s\0' file_id x.y:z-1 storage_key u/2024/x.pdf content_type application/pdf \
        sha256 "$(printf '%064d' 0)" name "r.pdf" owner o steps "text,thumbnails" >"$d/e2"
      printf '%s\0' file_id "" storage_key ../x size -1 steps bogus >"$d/e3" ;;
    storage_key) printf 'a/b/c.blob' >"$d/k1"; printf '../x' >"$d/k2"; printf 'a//b' >"$d/k3"
      printf 'u/2024-01-01/F_1.pdf' >"$d/k4" ;;
    helper_channel) printf 'INGH' >"$d/h1"
      # A result frame as a helper writes it ("INGH", type, JSON length, blob length, JSON, blob).
      python3 - "$d" <<'PY' || true
import json, struct, sys
text = 'h\u00e9llo'.encode()
r = {"file_error_code": "", "file_error": "", "content_hash": "0" * 64,
     "fields": [["extraction_status", "ok"], ["extracted_text_key", "text/f1.txt"]],
     "clear": ["error"], "outputs": [{"key": "text/f1.txt", "size": len(text)}], "step_failed": False}
for name, typ, body, blob in (("h2", 5, r, text), ("h3", 3, {"content_type": "application/pdf"}, b"")):
    j = json.dumps(body).encode()
    open(sys.argv[1] + "/" + name, "wb").write(struct.pack("<4sIII", b"INGH", typ, len(j), len(blob)) + j + blob)
PY
      ;;
  esac
}

rc=0; summary=()
for t in $targets; do
  seeds "$t" "$build/seeds-$t"
  mkdir -p "$build/work-$t"
  case $t in
    pdf_text|thumbnails|image_text) leaks=0; maxlen=1048576 ;;  # third-party globals (glib, poppler, tesseract)
    *) leaks=1; maxlen=65536 ;;
  esac
  s0=$SECONDS
  if OMP_THREAD_LIMIT=1 ASAN_OPTIONS=detect_leaks=$leaks:allocator_may_return_null=1 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=$maxlen \
      -artifact_prefix="$build/findings/$t-" -print_final_stats=1 \
      "$build/work-$t" "$build/seeds-$t" >"$build/fuzz-$t.log" 2>&1; then
    status=ok
  else
    status=FINDING; rc=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-$t.log" | tail -n 1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$build/fuzz-$t.log" | tail -n 1)
  if [ -z "$execs" ]; then  # a crash: libFuzzer prints no final stats, take the last status line
    execs=$(grep -oE '^#[0-9]+' "$build/fuzz-$t.log" | tail -n 1 | tr -d '#')
  fi
  line=$(printf 'fuzz_%-15s %-7s %4ss %10s execs  peak %s MB' "$t" "$status" $((SECONDS - s0)) "${execs:-?}" "${rss:-?}")
  echo "$line"; summary+=("$line")
  if [ $status != ok ]; then
    grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error|deadly signal' "$build/fuzz-$t.log" | sed 's/^/    /' || true
    grep -E '^artifact_prefix|Test unit written to' "$build/fuzz-$t.log" | sed 's/^/    /' || true
    echo "    log: $build/fuzz-$t.log"
  fi
done
n=$(wc -w <<<"$targets")
if [ $rc = 0 ]; then
  echo "fuzz summary: $n targets, ${secs}s each, no findings, $((SECONDS - t0))s total"
else
  echo "fuzz summary: FINDINGS in $(printf '%s\n' "${summary[@]}" | grep -c FINDING) of $n targets (see build-fuzz/findings/), $((SECONDS - t0))s total"
fi
exit $rc

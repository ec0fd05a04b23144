#!/usr/bin/env bash
# The whole test suite: installs what is missing, checks the formatting, builds, runs every
# test with CTest, then lists each skipped test with the reason it printed.
# Tests start their own redis-server processes on free loopback ports and make their own
# images and PDFs. The corpus is looked up at ../shared: the tests that need it skip with a
# message when it is absent, and fail when CI=true.
# After CTest, a short bounded fuzzing pass (scripts/fuzz.sh, clang build in build-fuzz/):
#   FUZZ_SECONDS  seconds per target (default 10; 0 skips fuzzing)
#   FUZZ_TARGETS  which targets (default all seven; "cheap" = event storage_key helper_channel plain_text)
# A fuzz finding fails this script after the CTest summary has been printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
bash scripts/check-format.sh
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} bash scripts/build.sh
cd build

# Each test that CTest reports as skipped, with the message GoogleTest printed for it (the
# line after "file:line: Skipped" in its output).
skip_report() {
  local log=Testing/Temporary/LastTest.log
  [ -f "$log" ] || return 0
  local skips
  skips=$(awk '/: Skipped$/ { getline reason; next }
       /^\[  SKIPPED \] [^ ]+ \(/ { print "  " $4 ": " (reason == "" ? "(no reason printed)" : reason); reason = "" }' \
    "$log" | sort -u)
  [ -n "$skips" ] || return 0
  echo "skipped: $(wc -l <<<"$skips") tests, each with its reason:"
  echo "$skips"
}

rc=0
OMP_THREAD_LIMIT=1 ctest --output-on-failure -j2 --timeout 600 || rc=$?
skip_report
[ "$rc" = 0 ] || exit "$rc"
cd "$root"
fuzz_seconds=${FUZZ_SECONDS:-10}
if [ "$fuzz_seconds" = 0 ]; then
  echo "fuzz: skipped (FUZZ_SECONDS=0)"
else
  bash scripts/fuzz.sh "$fuzz_seconds"
fi

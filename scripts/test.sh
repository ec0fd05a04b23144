#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest.
# Tests start their own redis-server processes on free loopback ports.
# The corpus is looked up at ../shared (skipped with a message when absent, a failure when CI=true).
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
OMP_THREAD_LIMIT=1 ctest --output-on-failure -j2 --timeout 600
cd "$root"
fuzz_seconds=${FUZZ_SECONDS:-10}
if [ "$fuzz_seconds" = 0 ]; then
  echo "fuzz: skipped (FUZZ_SECONDS=0)"
else
  bash scripts/fuzz.sh "$fuzz_seconds"
fi

#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every test with CTest.
# Tests start their own redis-server processes on free loopback ports.
# The corpus is looked up at ../shared (skipped with a message when absent, a failure when CI=true).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} bash scripts/build.sh
cd build
OMP_THREAD_LIMIT=1 ctest --output-on-failure -j2 --timeout 600

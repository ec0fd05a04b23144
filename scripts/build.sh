#!/usr/bin/env bash
# Configures and builds ingestd into ./build (Release unless BUILD_TYPE says otherwise).
# Extra CMake arguments pass through: scripts/build.sh -DINGESTD_SANITIZE=ON
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"

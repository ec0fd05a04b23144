#!/usr/bin/env bash
# Fails when a C++ file of the tree differs from what clang-format (the .clang-format at the
# root) makes of it. Fix with: git ls-files '*.cpp' '*.hpp' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format >/dev/null 2>&1; then
  echo "check-format: clang-format is not installed (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
bad=$(git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run 2>&1 | grep -oE '^[^:]+\.(cpp|hpp)' | sort -u || true)
if [ -n "$bad" ]; then
  echo "check-format: these files are not clang-formatted:" >&2
  printf '  %s\n' $bad >&2
  exit 1
fi
echo "check-format: $(git ls-files '*.cpp' '*.hpp' | wc -l) files formatted"

#!/usr/bin/env bash
# Installs the Debian 12 packages ingestd needs.
#   install-deps.sh        everything: build, run, test, fuzz, benchmark (CI, the image's build stage)
#   install-deps.sh run    only what building and running the worker needs (scripts/run-worker.sh):
#                          no test frameworks, browser, clang, prometheus or Node.js
# Idempotent: packages already present are skipped; safe to run on every build.
set -euo pipefail
set_name=${1:-all}
case "$set_name" in all | run) ;; *) echo "usage: install-deps.sh [all|run]" >&2; exit 2 ;; esac

packages=(
  # toolchain
  build-essential g++ cmake pkg-config git ca-certificates file
  # libraries
  libboost-dev libboost-system-dev libhiredis-dev
  libtesseract-dev libleptonica-dev tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd tesseract-ocr-deu
  libpoppler-cpp-dev libpoppler-private-dev poppler-utils
  libvips-dev libvips-tools libwebp-dev
  libspdlog-dev libfmt-dev libssl-dev libmagic-dev libgoogle-perftools-dev
  nlohmann-json3-dev libcli11-dev libseccomp-dev
  # the object store: libcurl signs S3 requests (CURLOPT_AWS_SIGV4), libxml2 reads its replies
  libcurl4-openssl-dev libxml2-dev
  # documents: zip, XML/HTML, MIME (extractors/ only)
  libzip-dev libgmime-3.0-dev
  # image headers read before decoding: a TIFF's variant, a HEIF/AVIF's size (extractors/ only)
  libtiff-dev libheif-dev
  # a local Redis for scripts/run-worker.sh
  redis-server redis-tools
)
test_packages=(
  # tests, fuzzing, benchmarks (the tests make their images with the vips CLI of libvips-tools
  # and render text for OCR with `vips text`, which needs a font)
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang libclang-rt-14-dev clang-format
  python3 qpdf procps time fonts-dejavu-core
  # tests write FlateDecode streams (tests/support/pdf_builder.cpp)
  zlib1g-dev
  # the object-store tests: s3rver (npm, pinned in tests/s3/package-lock.json); OpenStack
  # Swift's s3api, which verifies SigV4 signatures (tests/s3/swift_s3.py), with faketime for
  # a skewed clock; boto3 and the AWS CLI as the tests' S3 clients; curl
  curl swift-proxy swift-account swift-container swift-object faketime python3-boto3 awscli
  # dashboard test in a real browser; deploy-file checks
  chromium chromium-driver python3-selenium python3-yaml
  # promtool (from Debian's prometheus package) lints /metrics in tests/worker/http_test.cpp
  # and checks docker/monitoring/ in tests/monitoring_test.py
  prometheus
  # the README's producer examples (tests/producers_test.py): redis-py; ioredis comes from npm
  python3-redis
  # managed Redis tests: a Sentinel set (redis-sentinel) and a test CA for rediss:// (openssl)
  redis-sentinel openssl
)

[ "$set_name" = run ] || packages+=("${test_packages[@]}")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

install_s3rver() {
  # s3rver, the S3-compatible test server, into tests/s3/node_modules, and ioredis for the
  # README's Node example into tests/producers/node_modules (npm only for test clients and
  # servers, pinned by their package-lock.json)
  local root dir
  root="$(cd "$(dirname "$0")/.." && pwd)"
  for dir in "$root/tests/s3" "$root/tests/producers"; do
    if [ ! -d "$dir/node_modules" ] && command -v npm >/dev/null 2>&1; then
      (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) ||
        echo "install-deps: npm ci in $dir failed; the tests that need it will skip" >&2
    fi
  done
}

# Debian's nodejs and npm (test servers only), unless a Node.js with npm is already there.
[ "$set_name" = run ] || command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)

if [ ${#missing[@]} -eq 0 ]; then
  [ "$set_name" = run ] || install_s3rver
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${#missing[@]} packages: ${missing[*]}" >&2
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# redis-server's package starts a system instance on 6379; ingestd runs its own.
if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet redis-server 2>/dev/null; then
  $sudo systemctl stop redis-server || true
  $sudo systemctl disable redis-server || true
fi
[ "$set_name" = run ] || install_s3rver

#!/usr/bin/env bash
# Installs what running needs (not the test tools), builds without the tests, and runs
# `ingestd worker` in the foreground.
# Without INGEST_REDIS_URL it first starts a private redis-server under ./data/redis on
# 127.0.0.1:6379 (the default URL), so `ingestd submit` and `status` in another shell find it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh run
bash scripts/build.sh -DINGESTD_TESTS=OFF -DINGESTD_BENCH=OFF
if [ -z "${INGEST_REDIS_URL:-}" ]; then
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    mkdir -p data/redis
    redis-server --bind 127.0.0.1 --port 6379 --dir "$root/data/redis" --appendonly yes \
      --daemonize yes --pidfile "$root/data/redis/redis.pid" --logfile "$root/data/redis/redis.log"
    for _ in $(seq 50); do redis-cli -p 6379 ping >/dev/null 2>&1 && break; sleep 0.1; done
    echo "run-worker: started a private redis-server on 127.0.0.1:6379 (data in ./data/redis)" >&2
  fi
fi
exec "$root/build/ingestd" worker "$@"

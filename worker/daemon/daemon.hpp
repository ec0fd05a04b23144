#pragma once

#include "worker/config/config.hpp"

namespace worker {

/// Runs `ingestd worker` until SIGTERM/SIGINT: consumes the stream with
/// `config.concurrency` jobs in flight, renews leases, reclaims abandoned entries, drains
/// on the first signal and exits at once on the second. Returns the exit code.
int run_daemon(const Config& config);

} // namespace worker

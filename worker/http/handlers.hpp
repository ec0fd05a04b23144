#pragma once

#include "worker/http/routes.hpp"

// The handlers of the route table, one file per noun (probes, dashboard, stats, recent
// files, a file's metadata and thumbnails).
namespace worker::http {

/// 200 "ok" while the process runs.
Response healthz(const Request& request, ServerContext& context);
/// 200 when connected to Redis and taking work, 503 otherwise or while draining.
Response readyz(const Request& request, ServerContext& context);
/// The Prometheus exposition of the in-memory counters; asks the reader for fresh queue gauges.
Response metrics_text(const Request& request, ServerContext& context);
/// The dashboard page.
Response dashboard_page(const Request& request, ServerContext& context);
/// This worker's state and its last 15 minutes, with queue gauges read from Redis now.
Response stats(const Request& request, ServerContext& context, jobs::Redis& redis);
/// The files whose status changed last, newest first, one row each.
Response recent_files(const Request& request, ServerContext& context, jobs::Redis& redis);
/// A file's metadata as JSON; 404 for an unknown or invalid file id.
Response file_metadata(const Request& request, ServerContext& context, jobs::Redis& redis);
/// A file's WebP thumbnail of size `{size}` with an ETag; 304 on If-None-Match.
Response file_thumbnail(const Request& request, ServerContext& context, jobs::Redis& redis);

} // namespace worker::http

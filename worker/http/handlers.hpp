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

/// Every live worker of the group, queue depth, fleet throughput and failure rate over 15
/// minutes and failures by code, from shared data in Redis.
Response workers(const Request& request, ServerContext& context, jobs::Redis& redis);
/// The body of /v1/workers (for the dashboard too). Reader thread only.
nlohmann::ordered_json fleet_json(ServerContext& context, jobs::Redis& redis);

/// POST: appends the file's event again from its metadata; 404 for an unknown file.
Response retry_file_action(const Request& request, ServerContext& context, jobs::Redis& redis);
/// POST: re-appends the dead letters (all, or those of the query's `file_id`s) that can succeed.
Response retry_dead_action(const Request& request, ServerContext& context, jobs::Redis& redis);
/// POST: deletes the dead letters (all, or those of the query's `file_id`s).
Response purge_dead_action(const Request& request, ServerContext& context, jobs::Redis& redis);

/// /files: the latest files with filters (?status, type, code) and a search (?q: id or name).
Response files_page(const Request& request, ServerContext& context, jobs::Redis& redis);
/// /files/<id>: one file's page; 404 page for an unknown file.
Response file_page(const Request& request, ServerContext& context, jobs::Redis& redis);
/// /dead: the dead letters with retry and purge buttons.
Response dead_page(const Request& request, ServerContext& context, jobs::Redis& redis);
/// POST from the pages: the actions above, each confirmed on a page.
Response retry_file_page(const Request& request, ServerContext& context, jobs::Redis& redis);
Response retry_dead_page(const Request& request, ServerContext& context, jobs::Redis& redis);
Response purge_dead_page(const Request& request, ServerContext& context, jobs::Redis& redis);

} // namespace worker::http

#pragma once

#include "worker/config/config.hpp"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <memory>

namespace worker {

struct Metrics;

/// The HTTP endpoint on INGEST_HTTP_ADDR: the routes of worker/http/routes.cpp (/healthz,
/// /readyz, /metrics, /v1/files/<id>, /v1/files/<id>/thumbnail/<size>, /v1/stats,
/// /v1/recent and the dashboard at /), GET and HEAD only. Runs on `io`; Redis and storage
/// reads run on a reader thread of its own, so /healthz never waits on them. Throws when
/// the address cannot be bound or the store cannot be opened.
class HttpServer {
public:
    HttpServer(boost::asio::io_context& io, const Config& config, Metrics& metrics, const std::atomic<bool>& draining);
    /// Stops accepting and stops the reader thread (after its read in progress).
    ~HttpServer();

private:
    struct Impl;
    std::shared_ptr<Impl> m_impl;
};

} // namespace worker

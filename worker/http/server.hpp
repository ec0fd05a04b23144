#pragma once

#include "worker/config/config.hpp"

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <memory>

namespace worker {

struct Metrics;

/// The HTTP endpoint on INGEST_HTTP_ADDR: /healthz, /readyz, /metrics, /v1/files/<id>,
/// /v1/files/<id>/thumbnail/<size>, and a read-only dashboard at /. Runs on `io`;
/// GET and HEAD only. Throws when the address cannot be bound.
class HttpServer {
public:
    HttpServer(boost::asio::io_context& io, const Config& config, Metrics& metrics, const std::atomic<bool>& draining);
    ~HttpServer();

private:
    struct Impl;
    std::shared_ptr<Impl> m_impl;
};

} // namespace worker

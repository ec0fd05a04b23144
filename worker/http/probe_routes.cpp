// The probes: /healthz, /readyz and /metrics read only memory, so that they answer at once
// whatever Redis or storage do.
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"

namespace worker::http {

Response healthz(const Request&, ServerContext&) {
    return text(beast_http::status::ok, "ok\n");
}

Response readyz(const Request&, ServerContext& context) {
    return context.ready() ? text(beast_http::status::ok, "ready\n")
                           : text(beast_http::status::service_unavailable, "not ready\n");
}

Response metrics_text(const Request&, ServerContext& context) {
    // The gauges answered now are the last sampled; the refresh serves the next scrape.
    context.request_gauge_refresh();
    return Response{beast_http::status::ok, "text/plain; version=0.0.4; charset=utf-8", context.metrics.render(), {}};
}

} // namespace worker::http

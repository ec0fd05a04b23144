#include "worker/http/dashboard.hpp"
#include "worker/http/handlers.hpp"

namespace worker::http {

Response dashboard_page(const Request&, ServerContext&) {
    return Response{beast_http::status::ok, "text/html; charset=utf-8", k_dashboard_html, {}};
}

} // namespace worker::http

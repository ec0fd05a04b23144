#include "worker/http/access.hpp"
#include "worker/http/context.hpp"
#include "worker/http/dashboard.hpp"
#include "worker/http/handlers.hpp"

namespace worker::http {

Response dashboard_page(const Request& request, ServerContext& context) {
    Response r{beast_http::status::ok, "text/html; charset=utf-8", k_dashboard_html, {}};
    // The browser gave the token (Basic, once): the page's own requests carry it as a cookie.
    if (request.token_given)
        r.headers.emplace_back(beast_http::field::set_cookie, token_cookie(context.config.http_token));
    return r;
}

} // namespace worker::http

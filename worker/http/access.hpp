#pragma once

#include "worker/http/routes.hpp"

#include <optional>
#include <string>
#include <string_view>

// INGEST_HTTP_TOKEN (spec "HTTP"): who may use a route.
namespace worker::http {

/// The refusal of a request to `route` carrying the Authorization header `authorization`
/// under the configured `token` (empty: none), or nullopt when it may go on. Open routes
/// always go on; guarded ones need the token when one is set; actions need it always
/// (403 when none is configured). A missing or wrong token is 401 with a Basic challenge,
/// so that a browser asks for it once (the token is the password; `Bearer TOKEN` works too).
/// The cookie `ingestd_token` (`cookies` is the Cookie header), which the dashboard page
/// sets once the browser gave the token, counts as the token too, so that the page's own
/// requests carry it. Sets `given` when the request carried the configured token.
std::optional<Response> refuse_access(const Route& route, std::string_view authorization, std::string_view cookies,
                                      const std::string& token, bool& given);

/// The Set-Cookie value that lets a browser that gave `token` use the dashboard's requests.
std::string token_cookie(const std::string& token);

} // namespace worker::http

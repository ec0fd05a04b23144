#pragma once

#include "worker/http/response.hpp"

#include <boost/beast/http/verb.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace jobs {
class Redis;
}

namespace worker::http {

struct ServerContext;

/// One parsed request as a route sees it.
struct Request {
    beast_http::verb method = beast_http::verb::get;
    std::string path;                          ///< the target without its query string
    std::map<std::string, std::string> params; ///< the pattern's `{name}` segments
    std::string if_none_match;                 ///< the If-None-Match header, or ""
    std::string query;                         ///< the target's query string, without '?'
    bool token_given = false;                  ///< INGEST_HTTP_TOKEN is set and the request carried it
    std::string content_type;                  ///< the Content-Type header, or ""
    std::string body;                          ///< the request body (at most 64 KiB), or ""
};

/// Who may use a route (see access.hpp): anyone; anyone unless INGEST_HTTP_TOKEN is set, then
/// only with it; only with the token, which must be set.
enum class Access { open, guarded, action };

/// A handler that reads only memory; it runs on the io thread and answers at once.
using InstantHandler = Response (*)(const Request& request, ServerContext& context);

/// A handler that reads Redis or storage; it runs on the reader thread with that thread's
/// connection and must answer within the read budget, or the client gets a 503.
using ReadHandler = Response (*)(const Request& request, ServerContext& context, jobs::Redis& redis);

/// One row of the route table: the methods it takes, its path pattern (literal segments and
/// `{name}` segments, each matching one non-empty segment) and its handler.
struct Route {
    std::set<beast_http::verb> methods;
    std::string_view pattern;
    std::variant<InstantHandler, ReadHandler> handler;
    Access access = Access::guarded;
};

/// Every route of the endpoint; a new route is one handler file and one row here.
const std::vector<Route>& routes();

/// What the table says about a request: its route and the pattern's captures, or the
/// answer when there is none (404, or 405 with an Allow header).
struct RouteMatch {
    const Route* route = nullptr;
    std::map<std::string, std::string> params;
    Response refusal; ///< set when route is null
};

/// Looks `method` and `path` up in `table`. A path no row matches is 404 unless no row takes
/// the method at all (405); a path whose rows do not take the method is 405.
RouteMatch match_route(const std::vector<Route>& table, beast_http::verb method, std::string_view path);

} // namespace worker::http

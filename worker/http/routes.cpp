#include "worker/http/routes.hpp"

#include "worker/http/handlers.hpp"

namespace worker::http {
namespace {

using beast_http::verb;

const std::set<verb> k_read_only{verb::get, verb::head};
const std::set<verb> k_post{verb::post};

// Splits "/a/b/c" into its segments; an empty path segment stays (it matches nothing).
std::vector<std::string_view> segments(std::string_view path) {
    std::vector<std::string_view> out;
    if (!path.empty() && path.front() == '/') path.remove_prefix(1);
    while (true) {
        auto slash = path.find('/');
        out.push_back(path.substr(0, slash));
        if (slash == std::string_view::npos) return out;
        path.remove_prefix(slash + 1);
    }
}

// The captures of `pattern` in `path`, or nullopt when it does not match.
std::optional<std::map<std::string, std::string>> match_pattern(std::string_view pattern, std::string_view path) {
    const auto want = segments(pattern);
    const auto have = segments(path);
    if (want.size() != have.size()) return std::nullopt;
    std::map<std::string, std::string> params;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const bool capture = want[i].size() > 2 && want[i].front() == '{' && want[i].back() == '}';
        if (capture && !have[i].empty()) {
            params[std::string(want[i].substr(1, want[i].size() - 2))] = std::string(have[i]);
        } else if (capture || want[i] != have[i]) {
            return std::nullopt;
        }
    }
    return params;
}

Response method_not_allowed(const std::set<verb>& allowed) {
    std::string allow;
    for (verb v : allowed) allow += (allow.empty() ? "" : ", ") + std::string(beast_http::to_string(v));
    Response r = text(beast_http::status::method_not_allowed, "method not allowed\n");
    r.headers.emplace_back(beast_http::field::allow, allow);
    return r;
}

} // namespace

const std::vector<Route>& routes() {
    static const std::vector<Route> table = {
        {k_read_only, "/healthz", healthz, Access::open},
        {k_read_only, "/readyz", readyz, Access::open},
        {k_read_only, "/metrics", metrics_text, Access::open},
        {k_read_only, "/", dashboard_page},
        {k_read_only, "/v1/stats", stats},
        {k_read_only, "/v1/workers", workers},
        {k_read_only, "/v1/recent", recent_files},
        {k_read_only, "/v1/files/{id}", file_metadata},
        {k_read_only, "/v1/files/{id}/thumbnail/{size}", file_thumbnail},
        {k_read_only, "/files", files_page},
        {k_read_only, "/files/{id}", file_page},
        {k_read_only, "/dead", dead_page},
        {k_post, "/files/{id}/retry", retry_file_page, Access::action},
        {k_post, "/dead/retry", retry_dead_page, Access::action},
        {k_post, "/dead/purge", purge_dead_page, Access::action},
        {k_post, "/v1/files/{id}/retry", retry_file_action, Access::action},
        {k_post, "/v1/dead/retry", retry_dead_action, Access::action},
        {k_post, "/v1/dead/purge", purge_dead_action, Access::action},
    };
    return table;
}

RouteMatch match_route(const std::vector<Route>& table, verb method, std::string_view path) {
    std::set<verb> path_methods, all_methods;
    for (const Route& route : table) {
        all_methods.insert(route.methods.begin(), route.methods.end());
        auto params = match_pattern(route.pattern, path);
        if (!params) continue;
        if (route.methods.count(method) != 0) return RouteMatch{&route, std::move(*params), {}};
        path_methods.insert(route.methods.begin(), route.methods.end());
    }
    if (!path_methods.empty()) return RouteMatch{nullptr, {}, method_not_allowed(path_methods)};
    if (all_methods.count(method) == 0) return RouteMatch{nullptr, {}, method_not_allowed(all_methods)};
    return RouteMatch{nullptr, {}, text(beast_http::status::not_found, "not found\n")};
}

} // namespace worker::http

#pragma once

#include "worker/http/response.hpp"

#include <string>
#include <string_view>
#include <vector>

// The server-rendered pages: escaping, the page shell, the query string.
namespace worker::http {

/// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string escape(std::string_view text);

/// A 200 (or `status`) text/html page titled `title` around `body` (already HTML), with the
/// shared style and a link back to the dashboard. No script, no external asset.
Response html_page(const std::string& title, const std::string& body,
                   beast_http::status status = beast_http::status::ok);

/// The decoded values of `name` in a query string (`a=1&a=2`, `+` and %XX decoded).
std::vector<std::string> query_values(const std::string& query, const std::string& name);

/// The first decoded value of `name`, or "".
std::string query_value(const std::string& query, const std::string& name);

} // namespace worker::http

#pragma once

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/status.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace worker::http {

namespace beast_http = boost::beast::http;

/// What a route answers, before the connection turns it into HTTP (HEAD drops the body).
struct Response {
    beast_http::status status = beast_http::status::ok;
    std::string content_type; ///< empty: no Content-Type header (a 304)
    std::string body;
    std::vector<std::pair<beast_http::field, std::string>> headers; ///< extra headers (ETag, Cache-Control)
};

/// A text/plain answer.
Response text(beast_http::status status, std::string body);

/// An application/json answer; invalid UTF-8 in `value` is replaced, never thrown on.
Response json(beast_http::status status, const nlohmann::ordered_json& value);

/// The 503 of a route whose read did not come back: `{"error": code, "message": message}`.
Response unavailable(const std::string& code, const std::string& message);

} // namespace worker::http

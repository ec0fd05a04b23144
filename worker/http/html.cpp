#include "worker/http/html.hpp"

namespace worker::http {
namespace {

constexpr const char* k_style =
    "body{font:14px system-ui,sans-serif;margin:1.5em 2em;color:#222;max-width:80em}"
    "table{border-collapse:collapse}td,th{padding:4px 8px;text-align:left;border-bottom:1px solid #eee;"
    "vertical-align:top}th{color:#555}.st-done{color:#18794e}.st-failed,.err{color:#c5221f}"
    ".st-processing,.st-pending{color:#8a6d00}pre{background:#f4f4f4;padding:1em;overflow:auto;white-space:pre-wrap}"
    "form.inline{display:inline}.note{background:#eef6ee;border:1px solid #b9dcb9;padding:.6em 1em}";

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out += ' ';
        } else if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
            out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

} // namespace

std::string escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

Response html_page(const std::string& title, const std::string& body, beast_http::status status) {
    std::string page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) +
                       " · ingestd</title><link rel=\"icon\" href=\"data:,\"><style>" + k_style +
                       "</style></head><body><p><a href=\"/\">ingestd dashboard</a> · <a href=\"/files\">files</a> · "
                       "<a href=\"/files?status=failed\">failed</a> · <a href=\"/dead\">dead letters</a></p><h1>" +
                       escape(title) + "</h1>" + body + "</body></html>";
    Response r{status, "text/html; charset=utf-8", std::move(page), {}};
    r.headers.emplace_back(beast_http::field::cache_control, "no-store");
    return r;
}

std::vector<std::string> query_values(const std::string& query, const std::string& name) {
    std::vector<std::string> values;
    std::size_t start = 0;
    while (start <= query.size()) {
        const auto end = std::min(query.find('&', start), query.size());
        const std::string_view pair(query.data() + start, end - start);
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos && decode(pair.substr(0, eq)) == name) {
            values.push_back(decode(pair.substr(eq + 1)));
        }
        start = end + 1;
    }
    return values;
}

std::string query_value(const std::string& query, const std::string& name) {
    auto values = query_values(query, name);
    return values.empty() ? "" : values.front();
}

} // namespace worker::http

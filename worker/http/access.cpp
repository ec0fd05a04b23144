#include "worker/http/access.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace worker::http {
namespace {

bool starts_with_word(std::string_view header, std::string_view scheme) {
    if (header.size() <= scheme.size() || header[scheme.size()] != ' ') return false;
    for (std::size_t i = 0; i < scheme.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(header[i])) != std::tolower(static_cast<unsigned char>(scheme[i])))
            return false;
    }
    return true;
}

// The password of a Basic header ("user:password" in base64), "" when it is not one.
std::string basic_password(std::string_view encoded) {
    std::string out(encoded.size(), '\0');
    const int n =
        EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                        reinterpret_cast<const unsigned char*>(encoded.data()), static_cast<int>(encoded.size()));
    if (n < 0) return "";
    out.resize(static_cast<std::size_t>(n));
    while (!out.empty() && out.back() == '\0') out.pop_back(); // the decoder's padding
    const auto colon = out.find(':');
    return colon == std::string::npos ? "" : out.substr(colon + 1);
}

// The secret the header presents, "" when none.
std::string presented(std::string_view authorization) {
    if (starts_with_word(authorization, "Bearer")) return std::string(authorization.substr(7));
    if (starts_with_word(authorization, "Basic")) return basic_password(authorization.substr(6));
    return "";
}

// The value of cookie `name` in a Cookie header, "" when absent.
std::string cookie_value(std::string_view cookies, std::string_view name) {
    std::size_t start = 0;
    while (start < cookies.size()) {
        auto end = cookies.find(';', start);
        if (end == std::string_view::npos) end = cookies.size();
        std::string_view pair = cookies.substr(start, end - start);
        while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
        if (pair.size() > name.size() && pair.substr(0, name.size()) == name && pair[name.size()] == '=') {
            return std::string(pair.substr(name.size() + 1));
        }
        start = end + 1;
    }
    return "";
}

// Compares in constant time, so that the answer's timing does not tell the token.
bool same_secret(const std::string& a, const std::string& b) {
    return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace

std::string token_cookie(const std::string& token) {
    return "ingestd_token=" + token + "; Path=/; HttpOnly; SameSite=Strict";
}

std::optional<Response> refuse_access(const Route& route, std::string_view authorization, std::string_view cookies,
                                      const std::string& token, bool& given) {
    given = !token.empty() && (same_secret(presented(authorization), token) ||
                               same_secret(cookie_value(cookies, "ingestd_token"), token));
    if (route.access == Access::open) return std::nullopt;
    if (token.empty()) {
        if (route.access == Access::guarded) return std::nullopt;
        return text(beast_http::status::forbidden, "actions need INGEST_HTTP_TOKEN to be set on the worker\n");
    }
    if (given) return std::nullopt;
    Response r = text(beast_http::status::unauthorized, "this needs Authorization: Bearer INGEST_HTTP_TOKEN\n");
    r.headers.emplace_back(beast_http::field::www_authenticate, "Basic realm=\"ingestd\", charset=\"UTF-8\"");
    return r;
}

} // namespace worker::http

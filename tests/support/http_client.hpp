#pragma once

#include <map>
#include <string>

namespace testsupport {

/// One HTTP exchange with a server on 127.0.0.1. `status` is 0 when nothing answered.
struct HttpResponse {
    int status = 0;
    std::map<std::string, std::string> headers; ///< names lower-cased
    std::string body;

    std::string header(const std::string& name) const {
        auto it = headers.find(name);
        return it == headers.end() ? std::string() : it->second;
    }
};

/// Sends `raw` as it is (any bytes, possibly a malformed request) and reads the answer until
/// the server closes the connection or `timeout_s` passes.
HttpResponse http_raw(int port, const std::string& raw, int timeout_s = 5);

/// `METHOD path HTTP/1.1` with Host and `Connection: close`, plus `extra_headers`
/// ("Name: value\r\n" lines).
HttpResponse http_request(int port, const std::string& method, const std::string& path,
                          const std::string& extra_headers = "");

inline HttpResponse http_get(int port, const std::string& path) {
    return http_request(port, "GET", path);
}

} // namespace testsupport

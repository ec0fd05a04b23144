#pragma once

#include "worker/storage/s3_location.hpp"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace worker {

struct S3Response;

/// One S3 request: signed by libcurl (CURLOPT_AWS_SIGV4) with the location's credentials.
struct S3Request {
    std::string method = "GET"; ///< GET, HEAD, PUT, DELETE, POST
    std::string url;
    std::vector<std::string> headers; ///< "Name: value"
    std::string_view body;            ///< a PUT/POST body in memory, or
    int body_fd = -1;                 ///< a PUT body read from this descriptor (pread from 0)
    std::uint64_t body_size = 0;      ///< its size
    /// Receives a 2xx GET body as it arrives, with the reply's status and headers; false
    /// aborts the transfer. Without it the body is kept in S3Response::body.
    std::function<bool(const S3Response& reply, long status, const char* data, std::size_t size)> sink;
};

/// What came back. `status` 0 means no HTTP reply (connection refused, reset, timeout, an
/// aborted sink): `transport_error` says which, `aborted` when the sink stopped it.
struct S3Response {
    long status = 0;
    std::string transport_error;
    bool aborted = false;
    std::string etag;
    std::string content_type;
    std::uint64_t content_length = 0;
    bool has_length = false;
    std::string body; ///< the body (error replies, listings), at most 1 MiB kept
};

/// The transport: a pool of libcurl easy handles (one per concurrent caller), so that
/// connections are reused across requests; TLS verification stays on. Thread-safe.
class S3Client {
public:
    explicit S3Client(S3Location location);
    ~S3Client();
    S3Client(const S3Client&) = delete;
    S3Client& operator=(const S3Client&) = delete;

    S3Response perform(const S3Request& request) const;
    const S3Location& location() const { return m_location; }

private:
    void* acquire() const;
    void release(void* handle) const;

    S3Location m_location;
    mutable std::mutex m_mutex;
    mutable std::vector<void*> m_idle;
};

} // namespace worker

#pragma once

// The transports under jobs::Redis: hiredis's own context for plain TCP and unix sockets, and
// a TLS connection on OpenSSL that formats commands and parses replies with hiredis's
// public formatter and reader (hiredis stays the only RESP code). Internal to jobs/.

#include "jobs/redis_url.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

struct redisReply;

namespace jobs {

struct ReplyDeleter {
    void operator()(redisReply* r) const;
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

/// One command's arguments as hiredis takes them: pointers and explicit lengths (binary safe).
struct Argv {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;

    explicit Argv(const std::vector<std::string>& args);
    int count() const { return static_cast<int>(argv.size()); }
};

/// A connected transport. After a failure (`nullptr` or false) `error()` says why and the
/// connection is not used again.
class RedisConnection {
public:
    virtual ~RedisConnection() = default;
    /// Queues one command; sent by the next `read_reply`.
    virtual bool append(const Argv& args) = 0;
    /// Sends what is queued and reads the next reply.
    virtual ReplyPtr read_reply() = 0;
    virtual void set_timeout(std::chrono::milliseconds timeout) = 0;
    virtual std::string error() const = 0;
    /// True when the failure was TLS's (a refused certificate, an alert from the server).
    virtual bool tls_failed() const { return false; }
};

/// Connects to `host:port` (or `a.unix_path`) without TLS; throws RedisIoError.
std::unique_ptr<RedisConnection> connect_plain(const RedisAddress& a, const std::string& host, int port,
                                               std::chrono::milliseconds timeout);

/// Connects to `host:port` with TLS (`tls`), the certificate verified against `host`; throws
/// RedisTlsError when the handshake fails, RedisIoError when the port cannot be reached.
std::unique_ptr<RedisConnection> connect_tls(const RedisTls& tls, const std::string& host, int port,
                                             std::chrono::milliseconds timeout);

} // namespace jobs

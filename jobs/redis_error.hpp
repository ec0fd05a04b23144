#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace jobs {

/// A connection-level failure (refused, reset, timed out, protocol error). Transient: the
/// connection is dropped and the next command reconnects.
class RedisIoError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Redis answered but cannot serve the command for now (`LOADING`, `BUSY`, `OOM`,
/// `MASTERDOWN`, `TRYAGAIN`, `READONLY`, `CLUSTERDOWN`, `NOREPLICAS`). Transient like an I/O
/// error: the caller backs off and retries.
class RedisBusyError : public RedisIoError {
public:
    using RedisIoError::RedisIoError;
};

/// The TLS handshake with Redis failed (an unknown CA, a name that does not match, a client
/// certificate refused, a port that does not speak TLS). An I/O error for the code that
/// retries, but a configuration error at start-up: the worker and the commands exit 2 on it.
class RedisTlsError : public RedisIoError {
public:
    using RedisIoError::RedisIoError;
};

/// Redis refused a command for good (a wrong type, a bad argument, a script error, an
/// answer of an unexpected shape): sending it again cannot help. `reply()` is Redis's text.
class RedisReplyError : public std::runtime_error {
public:
    /// `what` names the command or the operation ("XREADGROUP", "final commit").
    RedisReplyError(std::string_view what, std::string reply)
        : std::runtime_error(std::string(what) + ": " + reply), m_reply(std::move(reply)) {}

    /// The error reply's text ("WRONGTYPE Operation against a key ...").
    const std::string& reply() const { return m_reply; }

    /// True when the reply's text starts with `prefix` ("WRONGTYPE", "NOGROUP").
    bool error_is(std::string_view prefix) const { return std::string_view(m_reply).starts_with(prefix); }

private:
    std::string m_reply;
};

} // namespace jobs

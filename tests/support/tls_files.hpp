#pragma once

#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace testsupport {

/// A test CA made with the openssl CLI in a temporary folder: a server certificate for
/// 127.0.0.1 and a client certificate signed by it, and a second CA that signed neither.
class TestCa {
public:
    TestCa();

    std::filesystem::path ca() const { return m_dir.path() / "ca.pem"; }
    std::filesystem::path other_ca() const { return m_dir.path() / "other-ca.pem"; }
    std::filesystem::path client_cert() const { return m_dir.path() / "client.pem"; }
    std::filesystem::path client_key() const { return m_dir.path() / "client.key"; }

    /// redis-server arguments for a TLS port beside the plain one, with this CA's server
    /// certificate; `require_client`: only clients with a certificate of this CA get in.
    std::vector<std::string> redis_args(int tls_port, bool require_client) const;

private:
    void issue(const std::string& name, const std::string& subject, const std::string& san) const;

    TempDir m_dir;
};

/// A redis-server with a plain port (for the test's own reads, server.url()) and a TLS port
/// with a certificate of its own test CA.
struct TlsRedisServer {
    TestCa ca;
    int tls_port = free_port();
    RedisServer server;

    explicit TlsRedisServer(bool require_client)
        : server(RedisOptions{false, ca.redis_args(tls_port, require_client), {}}) {}

    /// `rediss://127.0.0.1:TLS_PORT/0`, with `userinfo@` when given.
    std::string tls_url(const std::string& userinfo = "") const {
        return "rediss://" + (userinfo.empty() ? "" : userinfo + "@") + "127.0.0.1:" + std::to_string(tls_port) + "/0";
    }
};

} // namespace testsupport

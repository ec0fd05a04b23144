#include "jobs/redis_connection.hpp"
#include "jobs/redis_error.hpp"

#include <array>
#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace jobs {
namespace {

struct SslCtxDeleter {
    void operator()(SSL_CTX* c) const { SSL_CTX_free(c); }
};
struct SslDeleter {
    void operator()(SSL* s) const { SSL_free(s); }
};
struct ReaderDeleter {
    void operator()(redisReader* r) const { redisReaderFree(r); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxDeleter>;

// The newest OpenSSL error's reason ("certificate verify failed"), the queue cleared.
std::string openssl_reason(const char* fallback) {
    const unsigned long code = ERR_peek_last_error();
    ERR_clear_error();
    const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
    return reason != nullptr ? reason : fallback;
}

void set_socket_timeout(int fd, std::chrono::milliseconds timeout) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// A non-blocking connect to one address, bounded by `timeout`; the descriptor or -1 (errno set).
int connect_one(const addrinfo* ai, std::chrono::milliseconds timeout) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) return -1;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        pollfd p{fd, POLLOUT, 0};
        int err = errno;
        if (err == EINPROGRESS) {
            const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
            socklen_t len = sizeof err;
            if (ready == 1)
                ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
            else
                err = ready == 0 ? ETIMEDOUT : errno;
        }
        if (err != 0) {
            ::close(fd);
            errno = err;
            return -1;
        }
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    return fd;
}

// A connected TCP socket to host:port; throws RedisIoError.
int tcp_connect(const std::string& host, int port, std::chrono::milliseconds timeout) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (rc != 0) throw RedisIoError(std::string("cannot connect to Redis: ") + ::gai_strerror(rc));
    int err = 0;
    for (const addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
        const int fd = connect_one(ai, timeout);
        if (fd >= 0) {
            ::freeaddrinfo(found);
            return fd;
        }
        err = errno;
    }
    ::freeaddrinfo(found);
    throw RedisIoError(std::string("cannot connect to Redis: ") + std::strerror(err));
}

// The client context: TLS 1.2 or newer, the peer verified against the CA, a client
// certificate when given.
SslCtxPtr make_context(const RedisTls& tls) {
    SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
    if (!ctx) throw RedisTlsError("cannot set up TLS: " + openssl_reason("out of memory"));
    SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    const bool ca_ok = tls.ca_file.empty()
                           ? SSL_CTX_set_default_verify_paths(ctx.get()) == 1
                           : SSL_CTX_load_verify_locations(ctx.get(), tls.ca_file.c_str(), nullptr) == 1;
    if (!ca_ok) throw RedisTlsError("cannot read the CA certificates: " + openssl_reason("unreadable"));
    if (!tls.cert_file.empty()) {
        if (SSL_CTX_use_certificate_chain_file(ctx.get(), tls.cert_file.c_str()) != 1 ||
            SSL_CTX_use_PrivateKey_file(ctx.get(), tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_check_private_key(ctx.get()) != 1) {
            throw RedisTlsError("cannot use the client certificate: " + openssl_reason("unreadable"));
        }
    }
    return ctx;
}

// TLS on a socket; commands formatted by redisFormatCommandArgv, replies parsed by a
// redisReader.
class TlsConnection final : public RedisConnection {
public:
    TlsConnection(SslCtxPtr ctx, int fd) : m_ctx(std::move(ctx)), m_fd(fd), m_reader(redisReaderCreate()) {}
    ~TlsConnection() override {
        m_ssl.reset();
        ::close(m_fd);
    }

    void handshake(const std::string& host, int port) {
        m_ssl.reset(SSL_new(m_ctx.get()));
        if (!m_ssl || !m_reader) throw RedisTlsError("cannot set up TLS: out of memory");
        SSL_set_fd(m_ssl.get(), m_fd);
        in6_addr ip{};
        const bool literal =
            ::inet_pton(AF_INET, host.c_str(), &ip) == 1 || ::inet_pton(AF_INET6, host.c_str(), &ip) == 1;
        if (literal) {
            X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(m_ssl.get()), host.c_str());
        } else {
            SSL_set_tlsext_host_name(m_ssl.get(), host.c_str());
            SSL_set1_host(m_ssl.get(), host.c_str());
        }
        const int rc = SSL_connect(m_ssl.get());
        if (rc == 1) return;
        const int err = errno;
        if (SSL_get_error(m_ssl.get(), rc) == SSL_ERROR_SYSCALL && err != 0) {
            ERR_clear_error(); // a timeout or a reset: the network's, retried like any I/O error
            throw RedisIoError("TLS handshake with Redis at " + host + ":" + std::to_string(port) +
                               " failed: " + std::strerror(err));
        }
        const long verify = SSL_get_verify_result(m_ssl.get());
        std::string why = verify != X509_V_OK
                              ? std::string("certificate verify failed: ") + X509_verify_cert_error_string(verify)
                              : openssl_reason("the server closed the connection");
        throw RedisTlsError("TLS handshake with Redis at " + host + ":" + std::to_string(port) + " failed: " + why);
    }

    bool append(const Argv& a) override {
        char* cmd = nullptr;
        const int len = redisFormatCommandArgv(&cmd, a.count(), const_cast<const char**>(a.argv.data()), a.lens.data());
        if (len < 0) return fail("cannot format the command");
        m_out.append(cmd, static_cast<std::size_t>(len));
        redisFreeCommand(cmd);
        return true;
    }

    ReplyPtr read_reply() override {
        if (!m_error.empty() || !flush()) return nullptr;
        std::array<char, 16384> buf{};
        for (;;) {
            void* raw = nullptr;
            if (redisReaderGetReply(m_reader.get(), &raw) != REDIS_OK) {
                fail(m_reader->errstr[0] != '\0' ? m_reader->errstr : "Protocol error");
                return nullptr;
            }
            if (raw != nullptr) {
                m_answered = true;
                return ReplyPtr(static_cast<redisReply*>(raw));
            }
            const int n = SSL_read(m_ssl.get(), buf.data(), static_cast<int>(buf.size()));
            if (n <= 0) {
                fail_io(n);
                return nullptr;
            }
            redisReaderFeed(m_reader.get(), buf.data(), static_cast<std::size_t>(n));
        }
    }

    void set_timeout(std::chrono::milliseconds timeout) override { set_socket_timeout(m_fd, timeout); }
    std::string error() const override { return m_error; }
    bool tls_failed() const override { return m_tls_failed; }

private:
    bool fail(const std::string& why) {
        if (m_error.empty()) m_error = why;
        return false;
    }

    // An SSL_read/SSL_write that returned `rc`: a TLS alert, a closed connection, a timeout.
    void fail_io(int rc) {
        const int code = SSL_get_error(m_ssl.get(), rc);
        const int err = errno;
        if (code == SSL_ERROR_SSL) {
            m_tls_failed = true;
            fail("TLS: " + openssl_reason("protocol error"));
        } else if (!m_answered && (code == SSL_ERROR_ZERO_RETURN || code == SSL_ERROR_SYSCALL)) {
            // Closed or reset before the first reply after a completed handshake: with TLS 1.3
            // this is how a server refuses a client certificate when its alert is lost.
            m_tls_failed = true;
            fail("TLS: the server closed the connection after the handshake (a client certificate refused?)");
        } else if (code == SSL_ERROR_ZERO_RETURN || (code == SSL_ERROR_SYSCALL && err == 0)) {
            fail("Server closed the connection");
        } else {
            fail(std::strerror(err != 0 ? err : EIO));
        }
        ERR_clear_error();
    }

    bool flush() {
        std::size_t done = 0;
        while (done < m_out.size()) {
            const int n = SSL_write(m_ssl.get(), m_out.data() + done, static_cast<int>(m_out.size() - done));
            if (n <= 0) {
                fail_io(n);
                return false;
            }
            done += static_cast<std::size_t>(n);
        }
        m_out.clear();
        return true;
    }

    SslCtxPtr m_ctx;
    int m_fd;
    std::unique_ptr<redisReader, ReaderDeleter> m_reader;
    std::unique_ptr<SSL, SslDeleter> m_ssl;
    std::string m_out;
    std::string m_error;
    bool m_tls_failed = false;
    bool m_answered = false; // a reply was read: the server accepted us
};

} // namespace

std::unique_ptr<RedisConnection> connect_tls(const RedisTls& tls, const std::string& host, int port,
                                             std::chrono::milliseconds timeout) {
    SslCtxPtr ctx = make_context(tls);
    const auto connect_timeout = std::min(timeout, std::chrono::milliseconds(5000));
    auto conn = std::make_unique<TlsConnection>(std::move(ctx), tcp_connect(host, port, connect_timeout));
    conn->set_timeout(connect_timeout);
    conn->handshake(host, port);
    conn->set_timeout(timeout);
    return conn;
}

} // namespace jobs

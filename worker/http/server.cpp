#include "worker/http/server.hpp"

#include "jobs/redis.hpp"
#include "worker/config/log.hpp"
#include "worker/http/context.hpp"
#include "worker/http/reader.hpp"
#include "worker/http/session.hpp"

#include <algorithm>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <list>

namespace worker {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Reads that may wait for the reader thread at once; more get a 503 at once rather than a
// queue that would only time out.
constexpr std::size_t k_max_queued_reads = 256;

// Connections served at once: past it, the connection idle longest is closed for the new
// one, so that idle or slow clients never use up the process's descriptors (the jobs need
// them) and /healthz still gets in.
constexpr std::size_t k_max_connections = 128;

// After a failed accept (EMFILE, ENFILE, ENOBUFS): wait before accepting again, doubling up
// to the cap, instead of spinning on a backlog that cannot be taken.
constexpr std::chrono::milliseconds k_accept_backoff_base{50}, k_accept_backoff_cap{1000};

// "host:port" or "[v6]:port" as an endpoint.
tcp::endpoint parse_endpoint(const std::string& addr) {
    const auto colon = addr.rfind(':');
    std::string host = addr.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    const auto port = static_cast<unsigned short>(std::stoi(addr.substr(colon + 1)));
    return tcp::endpoint(asio::ip::make_address(host), port);
}

} // namespace

struct HttpServer::Impl : std::enable_shared_from_this<HttpServer::Impl> {
    Impl(asio::io_context& io, const Config& config, Metrics& metrics, const std::atomic<bool>& draining)
        : reader(redis_address(config), http::k_read_budget, k_max_queued_reads),
          context(config, metrics, draining, reader), acceptor(io), retry_timer(io) {}

    http::RedisReader reader;
    http::ServerContext context;
    tcp::acceptor acceptor;
    asio::steady_timer retry_timer;
    std::chrono::milliseconds accept_backoff{0};
    std::list<std::weak_ptr<http::Session>> sessions; // oldest first

    void listen(const std::string& addr) {
        const tcp::endpoint endpoint = parse_endpoint(addr);
        acceptor.open(endpoint.protocol());
        acceptor.set_option(asio::socket_base::reuse_address(true));
        acceptor.bind(endpoint);
        acceptor.listen();
        accept();
    }

    void accept() {
        acceptor.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
            if (ec == asio::error::operation_aborted || !self->acceptor.is_open()) return;
            if (ec) return self->accept_later(ec);
            self->accept_backoff = std::chrono::milliseconds(0);
            self->make_room();
            // Sessions share the Impl's lifetime through the context they hold.
            std::shared_ptr<http::ServerContext> context(self, &self->context);
            auto session = std::make_shared<http::Session>(std::move(socket), std::move(context));
            self->sessions.push_back(session);
            session->run();
            self->accept();
        });
    }

    void accept_later(const boost::system::error_code& ec) {
        accept_backoff = std::clamp(accept_backoff * 2, k_accept_backoff_base, k_accept_backoff_cap);
        log::warn("HTTP accept failed; backing off",
                  {{"error", ec.message()}, {"retry_in_ms", std::to_string(accept_backoff.count())}});
        retry_timer.expires_after(accept_backoff);
        retry_timer.async_wait([self = shared_from_this()](const boost::system::error_code& e) {
            if (!e) self->accept();
        });
    }

    // Forgets ended sessions; at the cap, closes the oldest one waiting for a request.
    void make_room() {
        sessions.remove_if([](const std::weak_ptr<http::Session>& w) { return w.expired(); });
        if (sessions.size() < k_max_connections) return;
        for (auto it = sessions.begin(); it != sessions.end(); ++it) {
            auto s = it->lock();
            if (s && s->waiting_for_request()) {
                s->close();
                sessions.erase(it);
                return;
            }
        }
    }
};

HttpServer::HttpServer(asio::io_context& io, const Config& config, Metrics& metrics, const std::atomic<bool>& draining)
    : m_impl(std::make_shared<Impl>(io, config, metrics, draining)) {
    m_impl->listen(config.http_addr);
    log::info("HTTP endpoint listening", {{"addr", config.http_addr}});
}

HttpServer::~HttpServer() {
    boost::system::error_code ec;
    m_impl->acceptor.close(ec);
    m_impl->retry_timer.cancel();
    m_impl->reader.stop();
}

} // namespace worker

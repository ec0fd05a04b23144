#include "worker/http/server.hpp"

#include "jobs/redis.hpp"
#include "worker/config/log.hpp"
#include "worker/http/context.hpp"
#include "worker/http/reader.hpp"
#include "worker/http/session.hpp"

#include <boost/asio/ip/tcp.hpp>

namespace worker {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Reads that may wait for the reader thread at once; more get a 503 at once rather than a
// queue that would only time out.
constexpr std::size_t k_max_queued_reads = 256;

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
        : reader(jobs::parse_redis_url(config.redis_url), http::k_read_budget, k_max_queued_reads),
          context(config, metrics, draining, reader), acceptor(io) {}

    http::RedisReader reader;
    http::ServerContext context;
    tcp::acceptor acceptor;

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
            if (ec == asio::error::operation_aborted) return;
            if (!ec) {
                // Sessions share the Impl's lifetime through the context they hold.
                std::shared_ptr<http::ServerContext> context(self, &self->context);
                std::make_shared<http::Session>(std::move(socket), std::move(context))->run();
            }
            self->accept();
        });
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
    m_impl->reader.stop();
}

} // namespace worker

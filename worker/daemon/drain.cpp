#include "worker/daemon/drain.hpp"

#include "worker/config/log.hpp"
#include "worker/http/metrics.hpp"
#include "worker/http/server.hpp"

#include <boost/asio.hpp>
#include <csignal>

#include <unistd.h>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;

} // namespace

struct Drain::Impl {
    const Config& config;
    Metrics& metrics;
    Slots& slots;
    std::atomic<bool>& stopping;
    boost::asio::io_context io;
    std::unique_ptr<HttpServer> http;
    boost::asio::signal_set signals{io, SIGTERM, SIGINT};
    boost::asio::steady_timer timer{io};
    Clock::time_point grace_end;

    Impl(const Config& c, Metrics& m, Slots& s, std::atomic<bool>& stop)
        : config(c), metrics(m), slots(s), stopping(stop) {}

    void wait_signal() {
        signals.async_wait([this](const boost::system::error_code& ec, int sig) { on_signal(ec, sig); });
    }

    void on_signal(const boost::system::error_code& ec, int sig) {
        if (ec) return;
        if (stopping) {
            log::warn("second signal: exiting at once");
            spdlog::default_logger()->flush();
            ::_exit(1);
        }
        log::info("signal received: draining",
                  {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}, {"in_flight", std::to_string(slots.running())}});
        stopping = true;
        metrics.draining = true;
        slots.close();
        grace_end = Clock::now() + std::chrono::seconds(config.shutdown_grace_s);
        wait_signal();
        check_drained();
    }

    // Polled rather than signalled: the job threads know nothing of the io_context.
    void check_drained() {
        if (slots.running() == 0 || Clock::now() >= grace_end) {
            io.stop();
            return;
        }
        timer.expires_after(std::chrono::milliseconds(50));
        timer.async_wait([this](const boost::system::error_code&) { check_drained(); });
    }
};

Drain::Drain(const Config& config, Metrics& metrics, Slots& slots, std::atomic<bool>& stopping)
    : m_impl(std::make_unique<Impl>(config, metrics, slots, stopping)) {
    if (config.http_addr == "off") return;
    try {
        m_impl->http = std::make_unique<HttpServer>(m_impl->io, config, metrics, stopping);
    } catch (const std::exception& e) {
        log::error(std::string("HTTP endpoint disabled: ") + e.what());
    }
}

Drain::~Drain() = default;

void Drain::run() {
    m_impl->wait_signal();
    m_impl->io.run();
}

} // namespace worker

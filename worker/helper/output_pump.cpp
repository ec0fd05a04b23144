#include "worker/helper/output_pump.hpp"

#include "worker/config/log.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

#include <unistd.h>

namespace worker {
namespace {

constexpr std::size_t k_max_line = 512;
constexpr double k_lines_per_second = 20, k_burst = 50;

// A token bucket: allow() spends one token when there is one.
class RateLimit {
public:
    bool allow() {
        const auto now = std::chrono::steady_clock::now();
        m_tokens =
            std::min(k_burst, m_tokens + k_lines_per_second * std::chrono::duration<double>(now - m_last).count());
        m_last = now;
        if (m_tokens < 1) return false;
        m_tokens -= 1;
        return true;
    }

private:
    double m_tokens = k_burst;
    std::chrono::steady_clock::time_point m_last = std::chrono::steady_clock::now();
};

class Pump {
public:
    explicit Pump(pid_t pid) : m_pid(std::to_string(pid)) {}

    void line(const std::string& raw) {
        if (!m_limit.allow()) {
            ++m_dropped;
            return;
        }
        if (m_dropped > 0) {
            log::warn("helper output dropped (rate limit)",
                      {{"helper_pid", m_pid}, {"lines", std::to_string(m_dropped)}});
            m_dropped = 0;
        }
        log::warn("helper output", {{"helper_pid", m_pid}, {"line", printable_line(raw)}});
    }

    void run(int fd) {
        std::string pending;
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            pending.append(buf, static_cast<std::size_t>(n));
            for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
                line(pending.substr(0, nl));
                pending.erase(0, nl + 1);
            }
            // A line without its end is cut rather than held without bound.
            if (pending.size() > 4 * k_max_line) {
                line(pending);
                pending.clear();
            }
        }
        if (!pending.empty()) line(pending);
    }

private:
    std::string m_pid;
    RateLimit m_limit;
    long long m_dropped = 0;
};

} // namespace

std::string printable_line(const std::string& raw) {
    std::string out;
    for (const char c : raw) {
        if (out.size() >= k_max_line) return out + "...";
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\x%02x", u);
            out += esc;
        } else {
            out += c;
        }
    }
    return out;
}

void pump_helper_output(core::Fd read_end, pid_t pid) {
    std::thread([fd = std::move(read_end), pid]() { Pump(pid).run(fd.get()); }).detach();
}

} // namespace worker

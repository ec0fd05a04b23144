#include "worker/helper/helper.hpp"

#include "core/file_error.hpp"
#include "worker/config/log.hpp"
#include "worker/helper/channel.hpp"
#include "worker/helper/death.hpp"
#include "worker/helper/exchange.hpp"
#include "worker/helper/helper_result.hpp"
#include "worker/helper/proc_status.hpp"
#include "worker/helper/process/helper.hpp"
#include "worker/helper/sandbox.hpp"
#include "worker/helper/spawn.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
namespace ch = helper_channel;
using namespace std::chrono_literals;

bool has_every_step(const PipelineResult& r, const JobSpec& spec) {
    return (!spec.step_text || find_field(r, status_field(Step::text))) &&
           (!spec.step_thumbnails || find_field(r, status_field(Step::thumbnails)));
}

} // namespace

Helper::Helper(const HelperSettings& settings, std::filesystem::path scratch, int slot)
    : m_settings(settings), m_scratch(std::move(scratch)), m_slot(slot) {
    try {
        start();
    } catch (const std::exception& e) {
        // The first job tries again (and fails as a job, not as the worker).
        log::error("parser helper start failed", {{"error", e.what()}, {"slot", std::to_string(slot)}});
    }
}

Helper::~Helper() {
    stop();
}

void Helper::forget() {
    if (m_settings.thread_share) m_settings.thread_share->forget(m_slot); // what it borrowed is free again
    m_pid = -1;
    m_sock.reset();
    m_jobs = 0;
    m_ready = false;
}

bool Helper::alive() {
    if (m_pid <= 0) return false;
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        log::warn("parser helper died while idle; starting another",
                  {{"pid", std::to_string(m_pid)},
                   {"how", WIFSIGNALED(status) ? signal_name(WTERMSIG(status))
                                               : "exit " + std::to_string(WEXITSTATUS(status))}});
        forget();
        return false;
    }
    return true;
}

void Helper::stop() {
    m_sock.reset(); // a helper between jobs exits on EOF; SIGKILL covers one that does not
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    forget();
}

void Helper::start() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(m_scratch, ec);
    std::filesystem::create_directories(m_scratch);
    SpawnedHelper spawned = spawn_helper(m_settings, m_scratch, m_slot);
    m_pid = spawned.pid;
    m_sock = std::move(spawned.channel);
}

void Helper::start_quietly() {
    try {
        start();
    } catch (const std::exception& e) {
        log::error("parser helper start failed", {{"error", e.what()}, {"slot", std::to_string(m_slot)}});
    }
}

bool Helper::warm_up() {
    try {
        if (!alive()) start();
        await_ready();
        return true;
    } catch (const std::exception& e) {
        log::error("parser helper start failed", {{"error", e.what()}, {"slot", std::to_string(m_slot)}});
        return false;
    }
}

void Helper::await_ready() {
    if (m_ready) return;
    // "ready" comes after start-up, sandbox and engine preload.
    ch::Reader reader;
    const auto until = Clock::now() + m_settings.start_timeout;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
        if (left <= 0ms) break;
        pollfd p{m_sock.get(), POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) <= 0) continue;
        auto st = reader.feed(m_sock.get());
        if (auto m = reader.next(); m && m->type == ch::Type::ready) {
            if (!m->json.value("landlock", false)) {
                static std::atomic<bool> warned{false};
                if (!warned.exchange(true)) {
                    log::warn("Landlock is unavailable: parser helpers run with seccomp and limits only");
                }
            }
            log::debug("parser helper ready", {{"pid", std::to_string(m_pid)}, {"slot", std::to_string(m_slot)}});
            m_ready = true;
            return;
        }
        if (st != ch::Reader::Status::more) break;
    }
    stop();
    throw std::runtime_error("a parser helper did not start (see its messages above)");
}

// A helper that dies while starting (or cannot start) gets one more chance; then the job's
// parser counts as crashed rather than leaving the event to bounce.
bool Helper::ensure_ready(const std::string& file_id) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            if (!alive()) start();
            await_ready();
            return true;
        } catch (const std::exception& e) {
            log::warn("parser helper start failed", {{"error", e.what()}, {"file_id", file_id}});
        }
    }
    return false;
}

void Helper::send_request(const HelperJob& job, std::chrono::milliseconds remaining) {
    const nlohmann::json req = {{"spec", ch::to_json(job.spec)},
                                {"options", ch::to_json(job.options)},
                                {"remaining_ms", remaining.count()},
                                {"hash", job.hash}};
    // CPU time as a backstop behind the wall clock: twice the job's budget.
    const int cpu_budget_s = static_cast<int>(std::min<long long>(remaining.count() / 500 + 5, 1 << 30));
    sandbox::set_cpu_budget(m_pid, cpu_budget_s);
    if (ch::send(m_sock.get(), ch::Type::request, req, {}, job.fd)) return;
    // It died between jobs without us noticing yet: one fresh helper, one more try.
    try {
        start();
        await_ready();
    } catch (...) {
        stop();
        throw;
    }
    sandbox::set_cpu_budget(m_pid, cpu_budget_s);
    if (!ch::send(m_sock.get(), ch::Type::request, req, {}, job.fd)) {
        stop();
        throw std::runtime_error("cannot send a job to a parser helper");
    }
}

// After a complete job: recycle the helper when it has served its files or grown too big.
void Helper::count_job() {
    ++m_jobs;
    const auto rss = proc_status_bytes(m_pid, "VmRSS:");
    if (m_jobs < m_settings.max_jobs && rss <= m_settings.rss_mark_bytes) return;
    log::info("recycling a parser helper",
              {{"pid", std::to_string(m_pid)}, {"jobs", std::to_string(m_jobs)}, {"rss_bytes", std::to_string(rss)}});
    stop();
    start_quietly();
}

// The helper is dead, broken or out of time: make sure it is gone, learn how it ended, and
// give the steps it did not finish that failure.
PipelineResult Helper::bury(const Exchange& exchange, const HelperJob& job) {
    if (!exchange.invalid.empty()) ::kill(m_pid, SIGKILL);
    HelperEnding ending = reap_helper(m_pid);
    ending.peak_bytes = std::max(ending.peak_bytes, exchange.peak_data);
    ending.killed_for_time = exchange.killed_for_time;
    ending.invalid = exchange.invalid;
    const pid_t dead = m_pid;
    forget();
    const HelperDeath death =
        classify_death(ending, helper_data_limit_bytes(m_settings.memory_mb), m_settings.memory_mb);
    if (death.counted && m_settings.on_crash) m_settings.on_crash();
    if (m_settings.on_restart) m_settings.on_restart(std::string(core::to_string(death.failure.code)));
    start_quietly(); // the next job finds it warm
    log::warn("parser helper stopped during a job", {{"file_id", job.spec.file_id},
                                                     {"error", death.failure.message},
                                                     {"pid", std::to_string(dead)},
                                                     {"error_code", std::string(core::to_string(death.failure.code))},
                                                     {"peak_bytes", std::to_string(ending.peak_bytes)}});
    return combine_results(exchange.parts, job.spec, job.hash, job.size, exchange.content_type, death.failure);
}

PipelineResult Helper::analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                               const PipelineOptions& options) {
    const HelperJob job{fd, size, hash, spec, options};
    if (!ensure_ready(spec.file_id)) {
        if (m_settings.on_crash) m_settings.on_crash();
        if (m_settings.on_restart) m_settings.on_restart("start_failed");
        return combine_results({}, spec, hash, size, "",
                               core::Failure{core::ErrorCode::crashed, "The parser process could not start."});
    }
    const bool bounded = options.deadline != Clock::time_point::max();
    const auto remaining =
        bounded ? std::max(0ms, std::chrono::duration_cast<std::chrono::milliseconds>(options.deadline - Clock::now()))
                : std::chrono::milliseconds(24LL * 3600 * 1000);
    const auto hard = bounded ? options.deadline + m_settings.kill_grace : Clock::time_point::max();
    send_request(job, remaining);
    Exchange exchange;
    try {
        exchange = exchange_messages(m_pid, m_sock.get(), hard, job);
    } catch (const core::FileError&) {
        start_quietly(); // the helper may be mid-job: a fresh one for the retry
        throw;
    }
    if (exchange.finished) {
        PipelineResult r = combine_results(exchange.parts, spec, hash, size, exchange.content_type, std::nullopt);
        if (has_every_step(r, spec)) {
            count_job();
            return r;
        }
        exchange.invalid = "a result without every step";
    }
    return bury(exchange, job);
}

} // namespace worker

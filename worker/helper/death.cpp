#include "worker/helper/death.hpp"

#include "worker/helper/process/helper.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

core::Failure out_of_memory(std::uint64_t memory_mb) {
    return {core::ErrorCode::memory_limit,
            "The parser process ran out of its memory budget of " + std::to_string(memory_mb) + " MB."};
}

HelperDeath classify_signal(int sig, bool near_limit, std::uint64_t memory_mb) {
    if (sig == SIGXCPU)
        return {{core::ErrorCode::timeout, "The parser process ran out of its CPU time budget."}, false};
    if (near_limit && (sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGKILL)) {
        return {out_of_memory(memory_mb), true};
    }
    return {{core::ErrorCode::crashed, "The parser process died with " + signal_name(sig) + "."}, true};
}

} // namespace

std::string signal_name(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

HelperEnding reap_helper(pid_t pid) {
    int status = 0;
    rusage ru{};
    pid_t got;
    // Polled rather than blocking: a helper that closed its socket but keeps running must
    // not hold the job beyond this grace.
    const auto reap_until = Clock::now() + 2s;
    while ((got = ::wait4(pid, &status, WNOHANG, &ru)) == 0 && Clock::now() < reap_until) {
        std::this_thread::sleep_for(5ms);
    }
    if (got == 0) {
        ::kill(pid, SIGKILL);
        while ((got = ::wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR) {
        }
    }
    HelperEnding ending;
    ending.peak_bytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
    if (got == pid && WIFSIGNALED(status)) ending.signal = WTERMSIG(status);
    if (got == pid && WIFEXITED(status)) ending.exit_code = WEXITSTATUS(status);
    return ending;
}

HelperDeath classify_death(const HelperEnding& ending, std::uint64_t limit_bytes, std::uint64_t memory_mb) {
    if (!ending.invalid.empty()) {
        return {{core::ErrorCode::crashed, "The parser process returned an invalid result (" + ending.invalid + ")."},
                true};
    }
    if (ending.killed_for_time) {
        return {{core::ErrorCode::timeout, "The job ran out of its time budget and the parser process was stopped."},
                false};
    }
    const bool near_limit = limit_bytes > 0 && ending.peak_bytes * 10 >= limit_bytes * 8;
    if (ending.signal) return classify_signal(*ending.signal, near_limit, memory_mb);
    if (ending.exit_code == k_helper_exit_out_of_memory) return {out_of_memory(memory_mb), true};
    return {{core::ErrorCode::crashed,
             "The parser process exited unexpectedly (status " + std::to_string(ending.exit_code.value_or(-1)) + ")."},
            true};
}

} // namespace worker

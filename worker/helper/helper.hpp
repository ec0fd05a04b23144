#pragma once

#include "core/fd.hpp"
#include "worker/helper/settings.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include <sys/types.h>

namespace worker {

struct Exchange;
struct HelperJob;

/// The supervisor of one long-lived helper process, used by one thread at a time. Runs
/// `analyse` in the helper with the job's deadline; turns the helper's death into step
/// failures (`timeout`, `memory_limit`, `crashed`); respawns it on the next job; recycles
/// it after HelperSettings::max_jobs files or above the RSS mark. Validates everything the
/// helper returns before the caller may store it.
class Helper {
public:
    /// Starts the process at once (a failure is logged; the first job tries again).
    Helper(const HelperSettings& settings, std::filesystem::path scratch, int slot);
    ~Helper();
    Helper(const Helper&) = delete;
    Helper& operator=(const Helper&) = delete;

    /// Same contract as worker::analyse. Throws std::runtime_error only when no helper can
    /// be started (the job is then left for a redelivery), and core::FileError (transient)
    /// when the worker cannot spool the text the helper handed over.
    PipelineResult analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                           const PipelineOptions& options);

    /// Starts the helper if none runs and waits until it is ready (engines preloaded), so
    /// that a worker claims no entry it cannot start at once. False when it cannot start
    /// (logged; the first job tries again).
    bool warm_up();

    /// The helper's pid, or -1 when none is running.
    pid_t pid() const { return m_pid; }

private:
    void start();         // starts a process; does not wait for it
    void await_ready();   // waits for its "ready"; throws std::runtime_error when it dies first
    void start_quietly(); // start(), logging a failure (the next job tries again)
    void stop();
    void forget(); // drops what belonged to a process that is gone
    bool alive();
    bool ensure_ready(const std::string& file_id);
    void send_request(const HelperJob& job, std::chrono::milliseconds remaining);
    void count_job();
    PipelineResult bury(const Exchange& exchange, const HelperJob& job);

    const HelperSettings& m_settings;
    std::filesystem::path m_scratch;
    int m_slot;
    pid_t m_pid = -1;
    core::Fd m_sock;
    bool m_ready = false;
    int m_jobs = 0;
};

} // namespace worker

#pragma once

#include "core/fd.hpp"
#include "worker/config/config.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <sys/types.h>

namespace worker {

/// `ingestd-helper` in the folder of the running executable: the parser process, the only
/// binary that links libvips, Poppler and Tesseract (the worker starts faster without them).
std::string helper_binary();

/// How helpers are started and bounded.
struct HelperSettings {
    std::string binary = helper_binary();        // ingestd-helper
    std::uint64_t memory_mb = 1024;              // INGEST_JOB_MEMORY_MB
    std::string preload_langs;                   // Tesseract languages to load at start; empty: none
    bool warm_parsers = false;                   // run Poppler and every image loader once at start
    int max_jobs = 5000;                         // recycle after this many files (the RSS mark usually comes first)
    std::uint64_t rss_mark_bytes = 256ULL << 20; // recycle when resident memory is above it
    std::chrono::milliseconds kill_grace{2000};  // after the job's deadline, before SIGKILL
    std::chrono::milliseconds start_timeout{60000};
    std::function<void()> on_crash; // called for each helper that died during a job

    static HelperSettings from(const Config& config);
};

class Helper;

/// Starts helper processes: one per job thread, each with its own scratch folder under a
/// private temporary folder that the pool removes. Thread-safe.
class HelperPool {
public:
    explicit HelperPool(HelperSettings settings);
    ~HelperPool();
    HelperPool(const HelperPool&) = delete;
    HelperPool& operator=(const HelperPool&) = delete;

    /// A new helper handle for one thread; its process starts at once (warm engines).
    /// Throws std::runtime_error when the process cannot start.
    std::unique_ptr<Helper> make();

    const HelperSettings& settings() const { return m_settings; }

private:
    HelperSettings m_settings;
    std::filesystem::path m_root;
    std::atomic<int> m_next{0};
};

/// The supervisor of one long-lived helper process, used by one thread at a time. Runs
/// `analyse` in the helper with the job's deadline; turns the helper's death into step
/// failures (`timeout`, `memory_limit`, `crashed`); respawns it on the next job; recycles
/// it after HelperSettings::max_jobs files or above the RSS mark. Validates everything the
/// helper returns before the caller may store it.
class Helper {
public:
    Helper(const HelperSettings& settings, std::filesystem::path scratch, int slot);
    ~Helper();
    Helper(const Helper&) = delete;
    Helper& operator=(const Helper&) = delete;

    /// Same contract as worker::analyse. Throws std::runtime_error only when no helper can
    /// be started (the job is then left for a redelivery).
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
    bool alive();

    const HelperSettings& m_settings;
    std::filesystem::path m_scratch;
    int m_slot;
    pid_t m_pid = -1;
    core::Fd m_sock;
    bool m_ready = false;
    int m_jobs = 0;
};

/// For `ingestd process`: the type is detected here, and only files that need a parser
/// (PDFs, images, text) go to a helper, started on first need, so that hashing-only runs
/// start no process. Not thread-safe.
class OnDemandHelper {
public:
    explicit OnDemandHelper(HelperSettings settings) : m_settings(std::move(settings)) {}
    PipelineResult analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                           const PipelineOptions& options);

private:
    HelperSettings m_settings;
    std::unique_ptr<HelperPool> m_pool;
    std::unique_ptr<Helper> m_helper;
};

/// Merges the helper's per-step results and, for steps that did not finish, the failure
/// that stopped them (`code` empty: none). Exposed for tests.
PipelineResult combine_results(const std::vector<PipelineResult>& parts, const JobSpec& spec, const std::string& hash,
                               std::uint64_t size, const std::string& content_type,
                               const std::optional<core::Failure>& stopped);

/// Checks a helper's result before adoption: known fields only, UTF-8 text, the expected
/// output keys, WebP files that are WebP and not too large. Returns the problem, or "".
std::string validate_result(const PipelineResult& r, const JobSpec& spec, const std::string& hash, std::uint64_t size,
                            const PipelineOptions& options);

} // namespace worker

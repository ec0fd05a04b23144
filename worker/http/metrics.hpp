#pragma once

#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace worker {

/// Counters and histograms for /metrics. Thread-safe.
struct Metrics {
    std::atomic<long long> in_flight{0};
    std::atomic<long long> redis_errors{0};
    std::atomic<long long> parser_crashes{0};
    std::atomic<long long> leases_lost{0};
    std::atomic<long long> stream_trimmed{0};
    std::atomic<long long> stream_pending{0};
    std::atomic<long long> stream_lag{0};
    std::atomic<long long> dead_letters{0};
    std::atomic<long long> bytes_hashed{0};
    std::atomic<long long> deletions{0};
    std::atomic<long long> outputs_removed{0};
    std::atomic<long long> files_done{0};   // jobs finished done, partial or failed (the heartbeat's)
    std::atomic<long long> files_failed{0}; // of those, failed or partial
    std::atomic<bool> redis_up{false};
    std::atomic<bool> storage_up{true};
    std::atomic<bool> threads_warm{false}; // every job thread's helper started (readiness waits for it)
    std::atomic<bool> draining{false};

    /// Counts one finished job by outcome (done, partial: done with a failed step, failed,
    /// deleted, superseded, lost, dead) and kind.
    void job(const std::string& outcome, const std::string& kind);
    /// Counts one step (text, thumbnails) that failed with `code` (corrupt_file, timeout...).
    void step_failure(const std::string& step, const std::string& code);
    /// Counts one restart of a parser helper, by why the previous one ended.
    void helper_restart(const std::string& reason);
    /// Observes one job's whole duration in seconds, by detected type.
    void job_duration(const std::string& kind, double seconds);
    /// Observes one stage's duration in seconds (hash, analyse, commit, total).
    void stage(const std::string& stage, double seconds);
    /// The Prometheus text exposition.
    std::string render() const;

    /// Jobs this worker finished in one wall-clock minute.
    struct Minute {
        long long start_unix = 0; ///< the minute's first second
        long long done = 0;       ///< outcome done
        long long failed = 0;     ///< outcomes failed, partial and dead
    };
    /// The last `n` minutes (at most k_minutes), oldest first, the current one last;
    /// minutes without jobs are present with zero counts.
    std::vector<Minute> recent_minutes(int n) const;
    static constexpr int k_minutes = 60;

    /// Labels of ingestd_build_info: ingestd's version and the libraries it was built with.
    static std::vector<std::pair<std::string, std::string>> build_info();

    /// Histogram bounds in seconds: from a millisecond to past the default job timeout (600 s).
    static constexpr std::array<double, 19> k_buckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,  1,   2.5,
                                                         5,     10,    30,   60,    120,  300, 600,  1800, 3600};

private:
    struct Histogram {
        std::array<long long, k_buckets.size()> counts{};
        long long count = 0;
        double sum = 0;
    };
    mutable std::mutex m_mu;
    std::map<std::pair<std::string, std::string>, long long> m_jobs;
    std::map<std::string, Histogram> m_stages;
    std::map<std::string, Histogram> m_job_durations; // by detected type
    std::map<std::pair<std::string, std::string>, long long> m_step_failures;
    std::map<std::string, long long> m_helper_restarts;

    static void observe(Histogram& h, double seconds);
    static void render_histogram(std::ostream& o, const char* name, const std::string& labels, const Histogram& h);
    void render_labelled(std::ostream& o) const;
    std::array<Minute, k_minutes> m_minutes{}; // ring indexed by minute number
};

} // namespace worker

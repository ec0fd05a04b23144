#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "worker/config/config.hpp"
#include "worker/pipeline/pipeline.hpp"
#include "worker/storage/store.hpp"

#include <atomic>
#include <functional>
#include <string>

namespace worker {

struct Metrics;

/// Takes one delivery from validation to its fenced commit: processing write, storage,
/// pipeline, outputs, final commit. One per job thread (it owns that thread's Redis
/// connection). `stopping` tells retries to give up when the worker is shutting down.
class JobRunner {
public:
    /// How the file's work is done: in this process or in a helper process.
    using Analyse = std::function<PipelineResult(int fd, std::uint64_t size, const std::string& hash,
                                                 const JobSpec& spec, const PipelineOptions& options)>;

    JobRunner(const Config& config, const jobs::Queue& queue, const Store& storage, Metrics& metrics,
              const std::atomic<bool>& stopping, Analyse analyse);

    /// Handles one delivery; never throws (every failure is logged, and the entry is either
    /// committed or left pending for a redelivery). `lease_lost`, when given, says whether
    /// another worker has taken the entry over; the job is then abandoned uncommitted.
    void run(const jobs::Delivery& delivery, const std::function<bool()>& lease_lost = {});

    jobs::Redis& redis() { return m_redis; }

private:
    struct Job; // one delivery's state from stage to stage (job_runner.cpp)
    using Fields = std::vector<std::pair<std::string, std::string>>;

    jobs::Fence with_retry(const char* what, const std::function<jobs::Fence()>& call);
    bool dead_lettered(const Job& job);
    Fields common_fields(const Job& job) const;
    bool write_processing(const Job& job);
    void delete_file(const Job& job);
    void remove_outputs(const Job& job, const char* why);
    bool abandoned(const Job& job, const char* stage);
    bool produce(Job& job);
    std::string job_version(const Job& job) const;
    bool with_storage_retry(Job& job, const std::function<bool()>& attempt);
    void hand_back(const Job& job, const std::string& why);
    bool process_input(Job& job, const JobSpec& spec, const PipelineOptions& options);
    bool analyse_input(Job& job, int fd, const std::string& hash, const JobSpec& spec, const PipelineOptions& options);
    bool commit_thumbnails_early(Job& job, PipelineResult& thumbnails);
    bool reuse(Job& job, const std::string& hash, const JobSpec& spec);
    Fields final_fields(Job& job) const;
    std::string index_hash(const Job& job) const;
    void commit(Job& job);
    void log_outcome(const Job& job, jobs::Fence fence, const std::string& kind);

    const Config& m_config;
    const jobs::Queue& m_queue;
    const Store& m_storage;
    Metrics& m_metrics;
    const std::atomic<bool>& m_stopping;
    Analyse m_analyse;
    jobs::Redis m_redis;
    PipelineOptions m_options;
    std::string m_version;
};

} // namespace worker

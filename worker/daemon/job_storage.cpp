// JobRunner's storage stage: the input read, hashed and analysed, the outputs written, and
// transient storage faults retried within the job's budget, then handed back.
#include "core/backoff.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/dedup.hpp"
#include "worker/daemon/job_state.hpp"
#include "worker/daemon/pacing.hpp"
#include "worker/http/metrics.hpp"

#include <sys/stat.h>

namespace worker {
namespace {

// The input's size is no longer the one it had at open: truncated or grown while read.
bool size_changed(const Store::Input& in) {
    struct stat st {};
    return ::fstat(in.fd.get(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) != in.size;
}

} // namespace

// Transient storage errors (a full or failing volume, descriptor pressure, an object store's
// 5xx or throttling) are retried with backoff and jitter while the job's time budget lasts;
// then the entry is handed back for a later delivery, never failed. A permanent error
// becomes the file's failure. False when the job ends uncommitted.
bool JobRunner::with_storage_retry(Job& job, const std::function<bool()>& attempt) {
    core::Backoff backoff(std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
    const auto budget_end = job.started + std::chrono::seconds(m_config.job_timeout_s);
    for (;;) {
        try {
            return attempt();
        } catch (const core::FileError& e) {
            if (!e.transient()) {
                job.result = file_failure(e.code(), e.what());
                return true;
            }
            if (abandoned(job, "storage")) return false; // another worker has the entry
            const auto wait = backoff.next();
            if (m_stopping || Clock::now() + wait >= budget_end) {
                hand_back(job, e.what());
                return false;
            }
            log::warn("storage error, retrying", {{"file_id", job.file_id()},
                                                  {"event_id", job.entry_id()},
                                                  {"error", e.what()},
                                                  {"retry_in_ms", std::to_string(wait.count())}});
            sleep_unless(m_stopping, wait);
        }
    }
}

// Leaves the entry pending and makes it claimable at once (fenced: only while this worker
// owns it); should Redis be away, the claim timeout hands it over instead.
void JobRunner::hand_back(const Job& job, const std::string& why) {
    m_metrics.job("released", "unknown");
    try {
        m_queue.release(m_redis, {job.entry_id()});
    } catch (const std::exception& e) {
        log::warn("hand-back failed; the claim timeout releases the entry",
                  {{"file_id", job.file_id()}, {"event_id", job.entry_id()}, {"error", e.what()}});
    }
    log::warn("storage still failing; event handed back for a later delivery",
              {{"file_id", job.file_id()}, {"event_id", job.entry_id()}, {"error", why}});
}

// Reads and hashes the input, then reuses a finished result for identical bytes or
// analyses it, and writes its outputs (a retry after a failed write only writes again).
// Throws core::FileError.
bool JobRunner::process_input(Job& job, const JobSpec& spec, const PipelineOptions& options) {
    if (!job.analysed) {
        auto t0 = Clock::now();
        Store::Input in = m_storage.open_input(job.event().storage_key, m_config.max_file_bytes);
        job.size = in.size;
        std::string hash = hash_and_check(in.fd.get(), in.size, spec, in.sha256_hex);
        m_metrics.bytes_hashed += static_cast<long long>(in.size);
        m_metrics.stage("hash", seconds_since(t0));
        if (m_config.reuse && in.size >= k_dedup_min_bytes && reuse(job, hash, spec)) return true;
        auto t1 = Clock::now();
        if (!analyse_input(job, in.fd.get(), hash, spec, options)) return false;
        m_metrics.stage("analyse", seconds_since(t1));
        if (size_changed(in)) {
            throw core::FileError(core::ErrorCode::storage_error, "The stored file changed while it was read.", true);
        }
        job.analysed = true;
    }
    if (abandoned(job, "analyse")) return false;
    write_outputs(m_storage, job.result.outputs);
    return true;
}

} // namespace worker

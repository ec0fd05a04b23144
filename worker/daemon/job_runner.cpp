#include "worker/daemon/job_runner.hpp"

#include "core/backoff.hpp"
#include "core/layout.hpp"
#include "extractors/sniff/content_type.hpp"
#include "extractors/sniff/ocr_langs.hpp"
#include "jobs/fleet_stats.hpp"
#include "jobs/metadata.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/dedup.hpp"
#include "worker/daemon/job_outcome.hpp"
#include "worker/daemon/job_state.hpp"
#include "worker/http/metrics.hpp"

#include <thread>

namespace worker {
namespace {

std::string ms_since(Clock::time_point t) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
}

// The metric label of the detected type: the kind the extractors classify it as, or
// "unknown" when no type was detected (a file that failed before).
std::string kind_label(const PipelineResult& result) {
    const std::string* type = find_field(result, "content_type");
    return type ? std::string(extractors::to_string(extractors::kind_of(*type))) : "unknown";
}

} // namespace

JobRunner::JobRunner(const Config& config, const jobs::Queue& queue, const Store& storage, Metrics& metrics,
                     const std::atomic<bool>& stopping, Analyse analyse)
    : m_config(config), m_queue(queue), m_storage(storage), m_metrics(metrics), m_stopping(stopping),
      m_analyse(std::move(analyse)), m_redis(redis_address(config), std::chrono::milliseconds(10000)),
      m_options(pipeline_options(config)), m_version(pipeline_version(config.ocr_langs)) {}

jobs::Fence JobRunner::with_retry(const char* what, const std::function<jobs::Fence()>& call) {
    core::Backoff backoff(std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
    auto give_up_at = Clock::time_point::max();
    for (;;) {
        try {
            jobs::Fence f = call();
            m_metrics.redis_up = true;
            return f;
        } catch (const jobs::RedisIoError& e) {
            ++m_metrics.redis_errors;
            m_metrics.redis_up = false;
            // Past the shutdown grace the entry stays pending for another worker.
            if (m_stopping && give_up_at == Clock::time_point::max()) {
                give_up_at = Clock::now() + std::chrono::seconds(m_config.shutdown_grace_s);
            }
            if (Clock::now() >= give_up_at) {
                return jobs::Fence::lost;
            }
            auto wait = backoff.next();
            log::warn("redis write failed, retrying",
                      {{"operation", what}, {"error", e.what()}, {"retry_in_ms", std::to_string(wait.count())}});
            std::this_thread::sleep_for(wait);
        }
    }
}

void JobRunner::run(const jobs::Delivery& d, const std::function<bool()>& lease_lost) {
    Job job(d, lease_lost);
    try {
        if (dead_lettered(job)) return;
        if (job.parsed.verdict == jobs::ParsedEntry::Verdict::ok && job.event().is_delete) return delete_file(job);
        job.common = common_fields(job);
        if (job.parsed.verdict == jobs::ParsedEntry::Verdict::ok && !write_processing(job)) return;
        if (!produce(job)) return;
        commit(job);
    } catch (const jobs::RedisReplyError& e) {
        // Redis refused a command of this job: the entry stays pending and is redelivered,
        // and after INGEST_MAX_DELIVERIES it is dead-lettered.
        m_metrics.job("error", "unknown");
        log::error(
            "job aborted by a Redis refusal, left pending",
            {{"file_id", job.file_id()}, {"event_id", d.entry_id}, {"error", e.what()}, {"redis_reply", e.reply()}});
    } catch (const std::exception& e) {
        // A bug or an unexpected failure: left pending like a refusal.
        m_metrics.job("error", "unknown");
        log::error("job aborted, left pending",
                   {{"file_id", job.file_id()}, {"event_id", d.entry_id}, {"error", e.what()}});
    }
}

// Validation: an entry without a valid file_id, or delivered too often, goes to the
// dead-letter stream instead of being processed.
bool JobRunner::dead_lettered(const Job& job) {
    const jobs::Delivery& d = job.delivery;
    if (job.parsed.verdict == jobs::ParsedEntry::Verdict::dead_letter) {
        auto f = with_retry("dead letter",
                            [&] { return m_queue.dead_letter(m_redis, d, "", job.parsed.reason, false, {}); });
        m_metrics.job("dead", "unknown");
        log::warn("event dead-lettered", {{"event_id", d.entry_id},
                                          {"reason", job.parsed.reason},
                                          {"stage", "validate"},
                                          {"fence", jobs::to_string(f)}});
        return true;
    }
    if (d.deliveries <= m_config.max_deliveries) return false;
    const std::string times = std::to_string(d.deliveries);
    const std::string why =
        "delivered " + times + " times, more than INGEST_MAX_DELIVERIES=" + std::to_string(m_config.max_deliveries);
    const Fields meta = {{"error_code", std::string(core::to_string(core::ErrorCode::gave_up))},
                         {"error", "The event was delivered " + times +
                                       " times without finishing and was moved to the dead-letter stream."},
                         {"attempts", times},
                         {"worker", m_config.consumer},
                         {"finished_at", jobs::utc_now_rfc3339()}};
    auto f = with_retry("dead letter", [&] { return m_queue.dead_letter(m_redis, d, job.file_id(), why, true, meta); });
    m_metrics.job("dead", "unknown");
    log::error("event gave up", {{"file_id", job.file_id()},
                                 {"event_id", d.entry_id},
                                 {"reason", why},
                                 {"deliveries", times},
                                 {"fence", jobs::to_string(f)}});
    return true;
}

JobRunner::Fields JobRunner::common_fields(const Job& job) const {
    const jobs::Event& ev = job.event();
    Fields common = {
        {"attempts", std::to_string(job.delivery.deliveries)},
        {"worker", m_config.consumer},
        {"started_at", job.started_at},
    };
    if (!ev.storage_key.empty()) common.emplace_back("storage_key", ev.storage_key);
    common.emplace_back("steps", ev.steps.empty() ? "text,thumbnails" : ev.steps);
    if (!ev.declared_content_type.empty()) common.emplace_back("declared_content_type", ev.declared_content_type);
    if (!ev.name.empty()) common.emplace_back("name", ev.name);
    if (!ev.owner.empty()) common.emplace_back("owner", ev.owner);
    return common;
}

// The fenced `processing` write; false (the entry acknowledged or lost) when the job must
// not go on.
bool JobRunner::write_processing(const Job& job) {
    // The event's own OCR languages go into the metadata with it, so that reconcile rebuilds
    // the event of a file whose worker died with them; the commit then keeps the languages OCR
    // used, or clears the field when OCR did not run (as the text step owns it).
    Fields fields = job.common;
    if (job.event().step_text && !job.event().ocr_langs.empty())
        fields.emplace_back("ocr_langs", job.event().ocr_langs);
    auto f =
        with_retry("processing write", [&] { return m_queue.start(m_redis, job.entry_id(), job.file_id(), fields); });
    if (f == jobs::Fence::ok) return true;
    m_metrics.job(jobs::to_string(f), "unknown");
    log::info("event skipped",
              {{"file_id", job.file_id()}, {"event_id", job.entry_id()}, {"fence", jobs::to_string(f)}});
    return false;
}

// A delete event: the fenced tombstone, then (when it was written) the file's outputs go.
void JobRunner::delete_file(const Job& job) {
    const std::string deleted_at = jobs::utc_now_rfc3339();
    auto f = with_retry("delete", [&] {
        return m_queue.tombstone(m_redis, job.entry_id(), job.file_id(), deleted_at, job.event().storage_key);
    });
    const std::string fence = jobs::to_string(f);
    m_metrics.job(f == jobs::Fence::ok ? "deleted" : fence, "unknown");
    if (f != jobs::Fence::ok) {
        log::info("delete skipped", {{"file_id", job.file_id()}, {"event_id", job.entry_id()}, {"fence", fence}});
        return;
    }
    ++m_metrics.deletions;
    log::info("file deleted", {{"file_id", job.file_id()},
                               {"event_id", job.entry_id()},
                               {"deleted_at", deleted_at},
                               {"duration_ms", ms_since(job.started)}});
    remove_outputs(job, "delete");
}

// Removes every output key of the file; a failure is logged, and `ingestd gc` removes what
// stays (no live metadata refers to it).
void JobRunner::remove_outputs(const Job& job, const char* why) {
    const std::vector<std::string> keys = core::output_keys(job.file_id());
    try {
        m_storage.remove_many(keys);
        m_metrics.outputs_removed += static_cast<long long>(keys.size());
    } catch (const core::FileError& e) {
        log::warn("outputs not removed; ingestd gc will",
                  {{"file_id", job.file_id()}, {"why", why}, {"error", e.what()}});
    }
}

// Another worker took the entry over (this worker's lease lapsed, e.g. Redis was away
// longer than INGEST_CLAIM_IDLE_MS): its result will be the one committed. The commit is
// fenced anyway; stopping early saves the work and the output writes.
bool JobRunner::abandoned(const Job& job, const char* stage) {
    if (!job.lease_lost || !job.lease_lost()) return false;
    ++m_metrics.leases_lost;
    m_metrics.job("lost", "unknown");
    log::warn("lease lost; job abandoned without committing",
              {{"file_id", job.file_id()}, {"event_id", job.entry_id()}, {"stage", stage}});
    return true;
}

// The pipeline version of the job: the event's OCR languages (when given and installed)
// instead of INGEST_OCR_LANGS, so content-hash reuse never crosses language sets.
std::string JobRunner::job_version(const Job& job) const {
    const std::string& langs = job.event().ocr_langs;
    if (langs.empty() || !extractors::missing_ocr_language(langs).empty()) return m_version;
    return pipeline_version(langs);
}

// Fills job.result: the file's failure, a reused result, or the analysis with its outputs
// written. False when the job was abandoned.
bool JobRunner::produce(Job& job) {
    if (job.parsed.verdict == jobs::ParsedEntry::Verdict::invalid_event) {
        job.result = file_failure(core::ErrorCode::invalid_event, job.parsed.reason);
        return true;
    }
    const jobs::Event& ev = job.event();
    JobSpec spec;
    spec.file_id = ev.file_id;
    spec.step_text = ev.step_text;
    spec.step_thumbnails = ev.step_thumbnails;
    spec.expected_size = ev.size;
    spec.expected_sha256 = ev.sha256;
    PipelineOptions options = m_options;
    if (!ev.ocr_langs.empty()) {
        // The event's languages replace INGEST_OCR_LANGS; one not installed fails the event.
        if (const std::string lang = extractors::missing_ocr_language(ev.ocr_langs); !lang.empty()) {
            job.result = file_failure(core::ErrorCode::invalid_event,
                                      "The OCR language \"" + lang + "\" named by ocr_langs is not installed.");
            return true;
        }
        options.ocr_langs = ev.ocr_langs;
    }
    options.deadline = job.started + std::chrono::seconds(m_config.job_timeout_s);
    return with_storage_retry(job, [&] { return process_input(job, spec, options); });
}

bool JobRunner::reuse(Job& job, const std::string& hash, const JobSpec& spec) {
    std::optional<ReusedResult> reused;
    with_retry("content-hash lookup", [&] {
        reused = reuse_identical(m_redis, m_queue.names(), m_storage, hash, spec, job_version(job));
        return jobs::Fence::ok;
    });
    if (!reused) return false;
    job.result = std::move(reused->result);
    job.reused_from = std::move(reused->source_file_id);
    return true;
}

JobRunner::Fields JobRunner::final_fields(Job& job) const {
    Fields fields = std::move(job.result.fields);
    fields.emplace_back("status", !job.result.file_error_code ? "done" : "failed");
    fields.insert(fields.end(), job.common.begin(), job.common.end());
    fields.emplace_back("finished_at", jobs::utc_now_rfc3339());
    fields.emplace_back("duration_ms", ms_since(job.started));
    fields.emplace_back("pipeline_version", job_version(job));
    return fields;
}

// Finished results are indexed for content-hash reuse, except a reused one (it keeps its
// source) and one whose parser was stopped by a limit or a crash: that says nothing lasting
// about the bytes, so the next upload of the same bytes tries again.
std::string JobRunner::index_hash(const Job& job) const {
    const PipelineResult& r = job.result;
    const bool indexed =
        !r.file_error_code && job.reused_from.empty() && !r.parser_stopped() && job.size >= k_dedup_min_bytes;
    return indexed ? r.content_hash : std::string();
}

void JobRunner::commit(Job& job) {
    const std::string kind = kind_label(job.result);
    const std::string index = index_hash(job);
    const Fields fields = final_fields(job);
    if (abandoned(job, "commit")) return;
    auto t2 = Clock::now();
    auto f = with_retry("final commit", [&] {
        return m_queue.commit(m_redis, job.entry_id(), job.file_id(), fields, job.result.clear, index);
    });
    m_metrics.stage("commit", seconds_since(t2));
    m_metrics.stage("total", seconds_since(job.started));
    log_outcome(job, f, kind);
    // Outputs written for a file deleted meanwhile must not outlive the tombstone.
    if (f == jobs::Fence::superseded && jobs::is_tombstone(m_redis, m_queue.names(), job.file_id())) {
        log::info("file deleted while in flight; its outputs are removed",
                  {{"file_id", job.file_id()}, {"event_id", job.entry_id()}});
        remove_outputs(job, "deleted while in flight");
    }
}

void JobRunner::log_outcome(const Job& job, jobs::Fence f, const std::string& kind) {
    report_outcome(m_metrics, {job.file_id(), job.entry_id(), kind, job.reused_from, f, &job.result, job.started});
    if (f != jobs::Fence::ok) return;
    try {
        // The fleet's failures by code live in Redis, so that every pod shows the same.
        jobs::count_failures(m_redis, m_queue.names(), failure_codes(job.result));
    } catch (const std::exception& e) {
        log::warn("failure counters not updated", {{"file_id", job.file_id()}, {"error", e.what()}});
    }
}

} // namespace worker

#include "worker/daemon/job_runner.hpp"

#include "core/backoff.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/dedup.hpp"
#include "worker/http/metrics.hpp"

#include <algorithm>
#include <thread>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string content_kind(const std::vector<std::pair<std::string, std::string>>& fields) {
    for (const auto& [k, v] : fields) {
        if (k == "content_type") {
            if (v == "application/pdf") return "pdf";
            if (v.rfind("image/", 0) == 0) return "image";
            if (v.rfind("text/", 0) == 0 || v == "application/json") return "text";
            return "other";
        }
    }
    return "unknown";
}

} // namespace

JobRunner::JobRunner(const Config& config, const jobs::Queue& queue, const Store& storage, Metrics& metrics,
                     const std::atomic<bool>& stopping, Analyse analyse)
    : m_config(config), m_queue(queue), m_storage(storage), m_metrics(metrics), m_stopping(stopping),
      m_analyse(std::move(analyse)), m_redis(jobs::parse_redis_url(config.redis_url), std::chrono::milliseconds(10000)),
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
            log::warn(std::string(what) + " failed, retrying",
                      {{"error", e.what()}, {"retry_in_ms", std::to_string(wait.count())}});
            std::this_thread::sleep_for(wait);
        }
    }
}

void JobRunner::run(const jobs::Delivery& d, const std::function<bool()>& lease_lost) {
    const auto started = Clock::now();
    const std::string started_at = jobs::utc_now_rfc3339();
    jobs::ParsedEntry parsed = jobs::parse_event(d.entry_id, d.fields);
    const jobs::Event& ev = parsed.event;
    try {
        if (parsed.verdict == jobs::ParsedEntry::Verdict::dead_letter) {
            auto f = with_retry("dead letter",
                                [&] { return m_queue.dead_letter(m_redis, d, "", parsed.reason, false, {}); });
            m_metrics.job("dead", "unknown");
            log::warn("event dead-lettered: " + parsed.reason,
                      {{"event_id", d.entry_id}, {"stage", "validate"}, {"fence", jobs::to_string(f)}});
            return;
        }
        if (d.deliveries > m_config.max_deliveries) {
            std::string why = "delivered " + std::to_string(d.deliveries) +
                              " times, more than INGEST_MAX_DELIVERIES=" + std::to_string(m_config.max_deliveries);
            std::vector<std::pair<std::string, std::string>> meta = {
                {"error_code", "gave_up"},
                {"error", "The event was delivered " + std::to_string(d.deliveries) +
                              " times without finishing and was moved to the dead-letter stream."},
                {"attempts", std::to_string(d.deliveries)},
                {"worker", m_config.consumer},
                {"finished_at", jobs::utc_now_rfc3339()}};
            auto f =
                with_retry("dead letter", [&] { return m_queue.dead_letter(m_redis, d, ev.file_id, why, true, meta); });
            m_metrics.job("dead", "unknown");
            log::error("event gave up: " + why,
                       {{"file_id", ev.file_id}, {"event_id", d.entry_id}, {"fence", jobs::to_string(f)}});
            return;
        }

        std::vector<std::pair<std::string, std::string>> common = {
            {"attempts", std::to_string(d.deliveries)},
            {"worker", m_config.consumer},
            {"started_at", started_at},
        };
        if (!ev.storage_key.empty()) common.emplace_back("storage_key", ev.storage_key);
        common.emplace_back("steps", ev.steps.empty() ? "text,thumbnails" : ev.steps);
        if (!ev.declared_content_type.empty()) common.emplace_back("declared_content_type", ev.declared_content_type);
        if (!ev.name.empty()) common.emplace_back("name", ev.name);
        if (!ev.owner.empty()) common.emplace_back("owner", ev.owner);

        if (parsed.verdict == jobs::ParsedEntry::Verdict::ok) {
            auto f =
                with_retry("processing write", [&] { return m_queue.start(m_redis, d.entry_id, ev.file_id, common); });
            if (f != jobs::Fence::ok) {
                m_metrics.job(jobs::to_string(f), "unknown");
                log::info("event skipped",
                          {{"file_id", ev.file_id}, {"event_id", d.entry_id}, {"fence", jobs::to_string(f)}});
                return;
            }
        }

        // Another worker took the entry over (this worker's lease lapsed, e.g. Redis was away
        // longer than INGEST_CLAIM_IDLE_MS): its result will be the one committed. The commit
        // is fenced anyway; stopping early saves the work and the output writes.
        auto abandoned = [&](const char* stage) {
            if (!lease_lost || !lease_lost()) return false;
            ++m_metrics.leases_lost;
            m_metrics.job("lost", "unknown");
            log::warn("lease lost; job abandoned without committing",
                      {{"file_id", ev.file_id}, {"event_id", d.entry_id}, {"stage", stage}});
            return true;
        };

        PipelineResult result;
        std::uint64_t parsed_size = 0;
        if (parsed.verdict == jobs::ParsedEntry::Verdict::invalid_event) {
            result = file_failure(core::ErrorCode::invalid_event, parsed.reason);
        } else {
            JobSpec spec;
            spec.file_id = ev.file_id;
            spec.step_text = ev.step_text;
            spec.step_thumbnails = ev.step_thumbnails;
            spec.expected_size = ev.size;
            spec.expected_sha256 = ev.sha256;
            PipelineOptions options = m_options;
            options.deadline = started + std::chrono::seconds(m_config.job_timeout_s);
            core::Backoff backoff(std::chrono::milliseconds(50), std::chrono::milliseconds(2000));
            for (int attempt = 0;; ++attempt) {
                try {
                    auto t0 = Clock::now();
                    Store::Input in = m_storage.open_input(ev.storage_key, m_config.max_file_bytes);
                    parsed_size = in.size;
                    std::string hash = hash_and_check(in.fd.get(), in.size, spec);
                    m_metrics.bytes_hashed += static_cast<long long>(in.size);
                    m_metrics.stage("hash", seconds_since(t0));
                    if (m_config.reuse && in.size >= k_dedup_min_bytes) {
                        std::optional<PipelineResult> reused;
                        with_retry("content-hash lookup", [&] {
                            reused = reuse_identical(m_redis, m_queue.names(), m_storage, hash, spec, m_version);
                            return jobs::Fence::ok;
                        });
                        if (reused) {
                            result = std::move(*reused);
                            break;
                        }
                    }
                    auto t1 = Clock::now();
                    result = m_analyse(in.fd.get(), in.size, hash, spec, options);
                    m_metrics.stage("analyse", seconds_since(t1));
                    if (abandoned("analyse")) return;
                    for (const auto& out : result.outputs) {
                        m_storage.write(out.key, out.bytes);
                    }
                    break;
                } catch (const core::FileError& e) {
                    if (e.transient() && attempt < 3 && !m_stopping) {
                        auto wait = backoff.next();
                        log::warn("storage error, retrying", {{"file_id", ev.file_id}, {"error", e.what()}});
                        std::this_thread::sleep_for(wait);
                        continue;
                    }
                    result = file_failure(e.code(), e.what());
                    break;
                }
            }
        }

        auto fields = std::move(result.fields);
        fields.emplace_back("status", !result.file_error_code ? "done" : "failed");
        fields.insert(fields.end(), common.begin(), common.end());
        fields.emplace_back("finished_at", jobs::utc_now_rfc3339());
        fields.emplace_back(
            "duration_ms",
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()));
        fields.emplace_back("pipeline_version", m_version);
        const std::string kind = content_kind(fields);
        // Index finished results for content-hash reuse; a reused result keeps its source.
        const auto source =
            std::find_if(fields.begin(), fields.end(), [](const auto& kv) { return kv.first == "deduplicated_from"; });
        const std::string deduplicated_from = source == fields.end() ? std::string() : source->second;
        const bool reused = !deduplicated_from.empty();
        // A parser stopped by a limit or a crash says nothing lasting about the bytes: such a
        // result is not offered for reuse (the next upload of the same bytes tries again).
        const bool stopped = std::any_of(fields.begin(), fields.end(), [](const auto& kv) {
            return kv.first.size() >= 10 && kv.first.compare(kv.first.size() - 10, 10, "error_code") == 0 &&
                   (kv.second == "timeout" || kv.second == "crashed" || kv.second == "memory_limit");
        });
        const std::string index_hash =
            !result.file_error_code && !reused && !stopped && parsed_size >= k_dedup_min_bytes ? result.content_hash
                                                                                               : std::string();
        if (abandoned("commit")) return;
        auto t2 = Clock::now();
        auto f = with_retry("final commit", [&] {
            return m_queue.commit(m_redis, d.entry_id, ev.file_id, fields, result.clear, index_hash);
        });
        m_metrics.stage("commit", seconds_since(t2));
        m_metrics.stage("total", seconds_since(started));
        const std::string outcome = f != jobs::Fence::ok      ? jobs::to_string(f)
                                    : !result.file_error_code ? "done"
                                                              : "failed";
        m_metrics.job(outcome, kind);
        const std::string ms =
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count());
        if (f == jobs::Fence::lost) {
            ++m_metrics.leases_lost;
            log::warn("lease lost before the commit; result discarded",
                      {{"file_id", ev.file_id}, {"event_id", d.entry_id}, {"stage", "commit"}, {"duration_ms", ms}});
        } else if (result.file_error_code) {
            log::warn("file failed: " + result.file_error,
                      {{"file_id", ev.file_id},
                       {"event_id", d.entry_id},
                       {"error_code", std::string(core::to_string(*result.file_error_code))},
                       {"stage", "commit"},
                       {"duration_ms", ms},
                       {"fence", jobs::to_string(f)}});
        } else if (reused) {
            log::info("file done from a finished file's results (identical bytes)",
                      {{"file_id", ev.file_id},
                       {"event_id", d.entry_id},
                       {"type", kind},
                       {"deduplicated_from", deduplicated_from},
                       {"stage", "commit"},
                       {"duration_ms", ms},
                       {"fence", jobs::to_string(f)}});
        } else {
            log::info(result.step_failed ? "file done with a failed step" : "file done",
                      {{"file_id", ev.file_id},
                       {"event_id", d.entry_id},
                       {"type", kind},
                       {"stage", "commit"},
                       {"duration_ms", ms},
                       {"fence", jobs::to_string(f)}});
        }
    } catch (const std::exception& e) {
        // A bug or an unexpected Redis reply: the entry stays pending and is redelivered,
        // and after INGEST_MAX_DELIVERIES it is dead-lettered.
        m_metrics.job("error", "unknown");
        log::error(std::string("job aborted, left pending: ") + e.what(),
                   {{"file_id", ev.file_id}, {"event_id", d.entry_id}});
    }
}

} // namespace worker

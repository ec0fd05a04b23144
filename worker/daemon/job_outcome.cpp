#include "worker/daemon/job_outcome.hpp"

#include "worker/config/log.hpp"
#include "worker/pipeline/step.hpp"

namespace worker {
namespace {

const char* step_label(Step step) {
    return step == Step::text ? "text" : "thumbnails";
}

void report_steps(Metrics& metrics, const JobOutcome& o) {
    for (Step step : k_steps) {
        const auto& failure = step_failure(*o.result, step);
        if (!failure) continue;
        const std::string code(core::to_string(failure->code));
        metrics.step_failure(step_label(step), code);
        // The library's own words (detail) stay out of the metadata: the log is where they
        // are read. An empty field is left out of the line.
        log::warn("step failed", {{"file_id", o.file_id},
                                  {"event_id", o.event_id},
                                  {"type", o.kind},
                                  {"step", step_label(step)},
                                  {"error_code", code},
                                  {"error", failure->message},
                                  {"detail", failure->detail}});
    }
}

} // namespace

std::string outcome_label(jobs::Fence fence, const PipelineResult& result) {
    if (fence != jobs::Fence::ok) return jobs::to_string(fence);
    if (result.file_error_code) return "failed";
    return result.step_failed ? "partial" : "done";
}

std::vector<std::string> failure_codes(const PipelineResult& result) {
    if (result.file_error_code) return {std::string(core::to_string(*result.file_error_code))};
    std::vector<std::string> codes;
    for (Step step : k_steps) {
        if (const auto& failure = step_failure(result, step)) codes.emplace_back(core::to_string(failure->code));
    }
    return codes;
}

void report_outcome(Metrics& metrics, const JobOutcome& o) {
    const PipelineResult& r = *o.result;
    const auto elapsed = std::chrono::steady_clock::now() - o.started;
    const std::string ms = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count());
    const std::string outcome = outcome_label(o.fence, r);
    metrics.job(outcome, o.kind);
    metrics.job_duration(o.kind, std::chrono::duration<double>(elapsed).count());
    if (o.fence == jobs::Fence::lost) {
        ++metrics.leases_lost;
        log::warn("lease lost before the commit; result discarded",
                  {{"file_id", o.file_id}, {"event_id", o.event_id}, {"stage", "commit"}, {"duration_ms", ms}});
        return;
    }
    const std::string fence = jobs::to_string(o.fence);
    if (r.file_error_code) {
        log::warn("file failed", {{"file_id", o.file_id},
                                  {"event_id", o.event_id},
                                  {"error_code", std::string(core::to_string(*r.file_error_code))},
                                  {"error", r.file_error},
                                  {"duration_ms", ms},
                                  {"fence", fence}});
        return;
    }
    report_steps(metrics, o);
    log::info(o.reused_from.empty() ? "file done" : "file done from identical bytes",
              {{"file_id", o.file_id},
               {"event_id", o.event_id},
               {"type", o.kind},
               {"outcome", outcome},
               {"deduplicated_from", o.reused_from},
               {"duration_ms", ms},
               {"fence", fence}});
}

} // namespace worker

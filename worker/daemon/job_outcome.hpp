#pragma once

#include "jobs/fence.hpp"
#include "worker/http/metrics.hpp"
#include "worker/pipeline/result.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace worker {

/// What a committed job tells the metrics and the log.
struct JobOutcome {
    std::string file_id;
    std::string event_id;
    std::string kind;        // the detected type's metric label
    std::string reused_from; // the file whose results were reused, or ""
    jobs::Fence fence = jobs::Fence::ok;
    const PipelineResult* result = nullptr;
    std::chrono::steady_clock::time_point started;
};

/// The outcome label of ingestd_jobs_total: the fence when the commit was refused, else
/// `failed`, `partial` (done with a failed step) or `done`.
std::string outcome_label(jobs::Fence fence, const PipelineResult& result);

/// The error codes of a result: the file's, else each failed step's (empty when none).
std::vector<std::string> failure_codes(const PipelineResult& result);

/// Counts the job (outcome, duration by type, each failed step by step and code) and logs
/// it: one `step failed` warning per failed step (step, error_code, error), then one line
/// whose message is fixed per kind of outcome (`file done`, `file failed`...), the variable
/// parts in fields.
void report_outcome(Metrics& metrics, const JobOutcome& outcome);

} // namespace worker

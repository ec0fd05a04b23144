#include "worker/pipeline/result.hpp"

namespace worker {
namespace {

std::string check_step_failure(const PipelineResult& r, Step step) {
    const std::string name(field_prefix(step));
    const auto* status = find_field(r, status_field(step));
    const auto* code = find_field(r, error_code_field(step));
    const auto* message = find_field(r, error_field(step));
    const auto& typed = step_failure(r, step);
    if (status == nullptr || *status != "failed") {
        if (code != nullptr || message != nullptr || typed) return "a " + name + " failure without a failed status";
        return {};
    }
    if (code == nullptr || message == nullptr) return "a failed " + name + " step without its error fields";
    const auto parsed = core::parse_error_code(*code);
    if (!parsed || core::is_file_level(*parsed)) return "a failed " + name + " step with an unknown error code";
    if (!typed || typed->code != *parsed || typed->message != *message) {
        return "a typed " + name + " failure that disagrees with its fields";
    }
    return {};
}

} // namespace

const std::string* find_field(const PipelineResult& r, std::string_view name) {
    for (const auto& [key, value] : r.fields) {
        if (key == name) return &value;
    }
    return nullptr;
}

const std::optional<core::Failure>& step_failure(const PipelineResult& r, Step step) {
    return step == Step::text ? r.text_error : r.thumbnail_error;
}

std::optional<core::Failure>& step_failure(PipelineResult& r, Step step) {
    return step == Step::text ? r.text_error : r.thumbnail_error;
}

void fail_step(PipelineResult& r, Step step, const core::Failure& failure) {
    r.fields.emplace_back(status_field(step), "failed");
    r.fields.emplace_back(error_code_field(step), std::string(core::to_string(failure.code)));
    r.fields.emplace_back(error_field(step), failure.message);
    step_failure(r, step) = failure;
    r.step_failed = true;
}

std::string check_step_failures(const PipelineResult& r) {
    for (Step step : k_steps) {
        if (auto problem = check_step_failure(r, step); !problem.empty()) return problem;
    }
    return {};
}

PipelineResult file_failure(core::ErrorCode code, const std::string& message) {
    PipelineResult r;
    r.file_error_code = code;
    r.file_error = message;
    r.fields = {{"error_code", std::string(core::to_string(code))}, {"error", message}};
    // The steps did not run: no step failure, typed or as fields, and their old fields go.
    r.clear = step_fields(true, true);
    for (const char* k : {"content_hash", "size_bytes", "content_type", "deduplicated_from"}) {
        r.clear.emplace_back(k);
    }
    return r;
}

} // namespace worker

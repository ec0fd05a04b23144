#include "worker/pipeline/result.hpp"

#include <algorithm>

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

PipelineResult join_steps(PipelineResult thumbnails, PipelineResult text) {
    if (text.file_error_code) return text;
    PipelineResult out = std::move(text);
    const auto file_error_field = [](const std::string& name) { return name == "error_code" || name == "error"; };
    std::erase_if(out.fields, [&](const auto& kv) { return file_error_field(kv.first); });
    std::erase_if(out.clear, file_error_field);
    for (auto& kv : thumbnails.fields) {
        if (!file_error_field(kv.first) && find_field(out, kv.first) == nullptr) out.fields.push_back(std::move(kv));
    }
    for (auto& name : thumbnails.clear) {
        if (!file_error_field(name) && std::find(out.clear.begin(), out.clear.end(), name) == out.clear.end()) {
            out.clear.push_back(std::move(name));
        }
    }
    out.thumbnail_error = std::move(thumbnails.thumbnail_error);
    out.step_failed = out.step_failed || thumbnails.step_failed;
    const std::optional<core::Failure>& first = out.text_error ? out.text_error : out.thumbnail_error;
    if (first) {
        out.fields.emplace_back("error_code", std::string(core::to_string(first->code)));
        out.fields.emplace_back("error", first->message);
    } else {
        out.clear.insert(out.clear.end(), {"error_code", "error"});
    }
    return out;
}

} // namespace worker

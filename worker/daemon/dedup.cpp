#include "worker/daemon/dedup.hpp"

#include "core/layout.hpp"
#include "jobs/hash_index.hpp"
#include "jobs/metadata.hpp"

#include <map>

namespace worker {
namespace {

using Meta = std::map<std::string, std::string>;

bool has_step(const std::string& steps, const char* step) {
    std::size_t start = 0;
    while (start <= steps.size()) {
        std::size_t end = steps.find(',', start);
        if (end == std::string::npos) end = steps.size();
        if (steps.compare(start, end - start, step) == 0) return true;
        start = end + 1;
    }
    return false;
}

std::string value_of(const Meta& meta, const std::string& field) {
    auto it = meta.find(field);
    return it == meta.end() ? std::string() : it->second;
}

// Only a finished result of the very same bytes by the very same pipeline, with every step
// this event asks for, is reused.
bool reusable(const Meta& meta, const std::string& sha256, const JobSpec& spec, const std::string& pipeline_version) {
    if (value_of(meta, "status") != "done" || value_of(meta, "content_hash") != sha256 ||
        value_of(meta, "pipeline_version") != pipeline_version) {
        return false;
    }
    std::string steps = value_of(meta, "steps");
    if (steps.empty()) steps = "text,thumbnails";
    return (!spec.step_text || has_step(steps, "text")) && (!spec.step_thumbnails || has_step(steps, "thumbnails"));
}

// The source's failure of one step, as a typed value.
std::optional<core::Failure> source_failure(const Meta& meta, Step step) {
    const auto code = core::parse_error_code(value_of(meta, error_code_field(step)));
    if (!code) return std::nullopt;
    return core::Failure{*code, value_of(meta, error_field(step))};
}

// The output key of `field` for `file_id`, when the field names an output.
std::optional<std::string> output_key(const std::string& field, const std::string& file_id) {
    if (field == "extracted_text_key") return core::text_key(file_id);
    if (auto size = core::thumbnail_size_of_field(field)) return core::thumbnail_key(file_id, *size);
    return std::nullopt;
}

// The source's result under `spec.file_id`; `copies` gets each output to copy (from, to).
PipelineResult result_from(const Meta& meta, const std::string& sha256, const JobSpec& spec,
                           std::vector<std::pair<std::string, std::string>>& copies) {
    PipelineResult result;
    result.content_hash = sha256;
    auto& f = result.fields;
    for (const char* k : {"content_hash", "size_bytes", "content_type"}) {
        if (meta.count(k)) f.emplace_back(k, meta.at(k));
    }
    for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
        auto it = meta.find(name);
        if (it == meta.end()) {
            result.clear.push_back(name);
            continue;
        }
        std::string value = it->second;
        if (auto to = output_key(name, spec.file_id)) {
            copies.emplace_back(value, *to);
            value = *to;
        }
        f.emplace_back(name, value);
    }
    for (Step step : k_steps) {
        if (!(step == Step::text ? spec.step_text : spec.step_thumbnails)) continue;
        step_failure(result, step) = source_failure(meta, step);
        if (value_of(meta, status_field(step)) == "failed") result.step_failed = true;
    }
    if (spec.step_text && spec.step_thumbnails) {
        if (meta.count("error_code")) {
            f.emplace_back("error_code", value_of(meta, "error_code"));
            f.emplace_back("error", value_of(meta, "error"));
        } else {
            result.clear.push_back("error_code");
            result.clear.push_back("error");
        }
    }
    return result;
}

// The finished source file named by the hash index, with its metadata.
std::optional<std::pair<std::string, Meta>> find_source(jobs::Redis& redis, const jobs::QueueNames& names,
                                                        const std::string& sha256, const JobSpec& spec) {
    try {
        std::optional<std::string> from = jobs::lookup_hash_source(redis, names, sha256);
        if (!from || *from == spec.file_id) return std::nullopt;
        std::optional<jobs::Fields> fields = jobs::read_metadata(redis, names, *from);
        if (!fields) return std::nullopt;
        return std::pair<std::string, Meta>(*from, Meta(fields->begin(), fields->end()));
    } catch (const jobs::RedisReplyError&) {
        return std::nullopt; // a key of another type: nothing trustworthy to reuse
    }
}

} // namespace

std::optional<ReusedResult> reuse_identical(jobs::Redis& redis, const jobs::QueueNames& names, const Store& storage,
                                            const std::string& sha256, const JobSpec& spec,
                                            const std::string& pipeline_version) {
    auto source = find_source(redis, names, sha256, spec);
    if (!source || !reusable(source->second, sha256, spec, pipeline_version)) return std::nullopt;
    std::vector<std::pair<std::string, std::string>> copies;
    ReusedResult reused{result_from(source->second, sha256, spec, copies), source->first};
    try {
        for (const auto& [from_key, to_key] : copies) storage.copy(from_key, to_key);
    } catch (const core::FileError&) {
        return std::nullopt; // an output of the source is gone: compute afresh
    }
    reused.result.fields.emplace_back("deduplicated_from", reused.source_file_id);
    return reused;
}

} // namespace worker

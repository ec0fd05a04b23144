#include "worker/daemon/dedup.hpp"

#include <map>

namespace worker {
namespace {

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

} // namespace

std::optional<PipelineResult> reuse_identical(jobs::Redis& redis, const jobs::QueueNames& names, const Store& storage,
                                              const std::string& sha256, const JobSpec& spec,
                                              const std::string& pipeline_version) {
    jobs::Reply source = redis.command({"GET", names.hash_index_key(sha256)});
    if (source.type != jobs::Reply::Type::string || source.str == spec.file_id || source.str.empty()) {
        return std::nullopt;
    }
    const std::string& from = source.str;
    jobs::Reply meta_reply = redis.command({"HGETALL", names.metadata_key(from)});
    if (!meta_reply.is_array()) return std::nullopt;
    std::map<std::string, std::string> meta;
    for (auto& [k, v] : meta_reply.as_pairs()) meta[k] = v;
    // Only a finished result of the very same bytes by the very same pipeline is reused.
    if (meta["status"] != "done" || meta["content_hash"] != sha256 || meta["pipeline_version"] != pipeline_version) {
        return std::nullopt;
    }
    const std::string steps = meta["steps"].empty() ? "text,thumbnails" : meta["steps"];
    if ((spec.step_text && !has_step(steps, "text")) || (spec.step_thumbnails && !has_step(steps, "thumbnails"))) {
        return std::nullopt;
    }

    PipelineResult result;
    result.content_hash = sha256;
    auto& f = result.fields;
    for (const char* k : {"content_hash", "size_bytes", "content_type"}) {
        if (meta.count(k)) f.emplace_back(k, meta[k]);
    }
    std::vector<std::pair<std::string, std::string>> copies; // from key -> to key
    const std::string id = spec.file_id;
    for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
        auto it = meta.find(name);
        if (it == meta.end()) {
            result.clear.push_back(name);
            continue;
        }
        std::string value = it->second;
        if (name == "extracted_text_key") {
            std::string to = "text/" + id + ".txt";
            copies.emplace_back(value, to);
            value = to;
        } else if (name.rfind("thumbnail_", 0) == 0 && name.size() > 4 &&
                   name.compare(name.size() - 4, 4, "_key") == 0) {
            std::string size = name.substr(10, name.size() - 14);
            std::string to = "thumbnails/" + id + "/" + size + ".webp";
            copies.emplace_back(value, to);
            value = to;
        }
        if (name.size() > 7 && name.compare(name.size() - 7, 7, "_status") == 0 && value == "failed") {
            result.step_failed = true;
        }
        f.emplace_back(name, value);
    }
    if (spec.step_text && spec.step_thumbnails) {
        if (meta.count("error_code")) {
            f.emplace_back("error_code", meta["error_code"]);
            f.emplace_back("error", meta["error"]);
        } else {
            result.clear.push_back("error_code");
            result.clear.push_back("error");
        }
    }
    try {
        for (const auto& [from_key, to_key] : copies) {
            storage.copy(from_key, to_key);
        }
    } catch (const core::FileError&) {
        return std::nullopt; // an output of the source is gone: compute afresh
    }
    f.emplace_back("deduplicated_from", from);
    return result;
}

} // namespace worker

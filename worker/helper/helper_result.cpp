#include "worker/helper/helper_result.hpp"

#include "core/layout.hpp"
#include "worker/helper/text_output.hpp"

#include <map>
#include <set>

namespace worker {
namespace {

constexpr std::size_t k_max_webp = 8u << 20;
constexpr std::size_t k_max_field = 64u << 10;

// The fields combine_results sets itself, whatever a part says.
const std::set<std::string, std::less<>> k_own = {"content_hash", "size_bytes", "content_type", "error_code", "error"};

bool is_webp(const std::string& b) {
    if (b.size() < 20 || b.size() > k_max_webp) return false;
    if (b.compare(0, 4, "RIFF") != 0 || b.compare(8, 4, "WEBP") != 0) return false;
    std::uint32_t riff = 0;
    for (int i = 3; i >= 0; --i) riff = (riff << 8) | static_cast<unsigned char>(b[4 + i]);
    return static_cast<std::uint64_t>(riff) + 8 == b.size();
}

bool is_thumbnail_key(const std::string& key, const std::string& file_id) {
    for (int size : core::k_thumbnail_sizes) {
        if (key == core::thumbnail_key(file_id, size)) return true;
    }
    return false;
}

// Every step's fields, own fields, and deduplicated_from (which a result only clears).
std::set<std::string, std::less<>> allowed_fields() {
    std::set<std::string, std::less<>> allowed(k_own.begin(), k_own.end());
    for (const auto& f : step_fields(true, true)) allowed.insert(f);
    return allowed;
}

std::string check_fields(const PipelineResult& r, const std::string& hash, std::uint64_t size,
                         const PipelineOptions& options) {
    static const auto allowed = allowed_fields();
    std::set<std::string> seen;
    for (const auto& [k, v] : r.fields) {
        if (!allowed.count(k)) return "an unknown field " + k.substr(0, 40);
        if (!seen.insert(k).second) return "a repeated field " + k;
        if (!valid_utf8(v)) return "a field that is not UTF-8: " + k;
        if (v.size() > (k == "extracted_text" ? options.max_text_bytes : k_max_field)) return "an oversized field " + k;
    }
    if (const auto* h = find_field(r, "content_hash"); h && *h != hash) return "another content hash";
    if (const auto* s = find_field(r, "size_bytes"); s && *s != std::to_string(size)) return "another size";
    for (const auto& c : r.clear) {
        if (!allowed.count(c) && c != "deduplicated_from") return "an unknown field to clear";
    }
    return {};
}

std::string check_outputs(const PipelineResult& r, const JobSpec& spec) {
    std::set<std::string> keys;
    const std::string text_key = core::text_key(spec.file_id);
    for (const auto& o : r.outputs) {
        if (!keys.insert(o.key).second) return "a repeated output";
        if (o.key == text_key) {
            // A text held in a file was checked as adopt_output_files copied it.
            if (!o.file && !valid_utf8(o.bytes)) return "a text output that is not UTF-8";
            continue;
        }
        if (!is_thumbnail_key(o.key, spec.file_id) || o.file) return "an unexpected output key";
        if (!is_webp(o.bytes)) return "a thumbnail that is not a WebP file of a sane size";
    }
    for (const auto& [k, v] : r.fields) {
        if ((k == "extracted_text_key" || core::thumbnail_size_of_field(k)) && !keys.count(v)) {
            return "a key field without its output: " + k;
        }
    }
    for (const auto& key : keys) {
        bool referenced = false;
        for (const auto& [k, v] : r.fields) referenced = referenced || v == key;
        if (!referenced) return "an output no field refers to";
    }
    return {};
}

// The fields and typed failures of the parts, text step first whatever order the helper
// ran the steps in, as analyse() orders them.
void merge_parts(PipelineResult& out, const std::vector<PipelineResult>& parts) {
    for (bool text_pass : {true, false}) {
        for (const auto& p : parts) {
            if ((find_field(p, status_field(Step::text)) != nullptr) != text_pass) continue;
            for (const auto& kv : p.fields) {
                if (!k_own.count(kv.first)) out.fields.push_back(kv);
            }
            for (const auto& o : p.outputs) out.outputs.push_back(o);
            out.step_failed = out.step_failed || p.step_failed;
            for (Step s : k_steps) {
                if (step_failure(p, s)) step_failure(out, s) = step_failure(p, s);
            }
        }
    }
}

} // namespace

PipelineResult combine_results(const std::vector<PipelineResult>& parts, const JobSpec& spec, const std::string& hash,
                               std::uint64_t size, const std::string& content_type,
                               const std::optional<core::Failure>& stopped) {
    PipelineResult out;
    out.content_hash = hash;
    std::string type = content_type;
    for (const auto& p : parts) {
        if (const auto* v = find_field(p, "content_type"); type.empty() && v) type = *v;
    }
    out.fields = {{"content_hash", hash}, {"size_bytes", std::to_string(size)}};
    if (!type.empty()) out.fields.emplace_back("content_type", type);
    merge_parts(out, parts);
    for (Step step : k_steps) {
        const bool wanted = step == Step::text ? spec.step_text : spec.step_thumbnails;
        if (stopped && wanted && !find_field(out, status_field(step))) fail_step(out, step, *stopped);
    }
    const auto& first = out.text_error ? out.text_error : out.thumbnail_error;
    if (first) {
        out.fields.emplace_back("error_code", std::string(core::to_string(first->code)));
        out.fields.emplace_back("error", first->message);
    } else if (spec.step_text && spec.step_thumbnails) {
        out.clear = {"error_code", "error"};
    }
    for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
        if (!find_field(out, name)) out.clear.push_back(name);
    }
    out.clear.push_back("deduplicated_from");
    return out;
}

std::string validate_result(const PipelineResult& r, const JobSpec& spec, const std::string& hash, std::uint64_t size,
                            const PipelineOptions& options) {
    if (r.file_error_code) return "a file-level failure";
    if (auto problem = check_fields(r, hash, size, options); !problem.empty()) return problem;
    if (auto problem = check_outputs(r, spec); !problem.empty()) return problem;
    return check_step_failures(r);
}

std::string validate_content_type(const std::string& content_type) {
    if (content_type.size() > 255 || !valid_utf8(content_type)) return "a bad content type";
    return {};
}

} // namespace worker

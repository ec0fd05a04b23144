#include "extractors/image_text.hpp"
#include "extractors/pdf_text.hpp"
#include "extractors/plain_text.hpp"
#include "extractors/sniff/content_type.hpp"
#include "extractors/sniff/hash.hpp"
#include "extractors/text_clean.hpp"
#include "thumbnails/thumbnailer.hpp"
#include "worker/config/version.hpp"
#include "worker/pipeline/pipeline.hpp"
#include "worker/storage/store.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <new>
#include <span>
#include <thread>

#include <sys/mman.h>

namespace worker {
namespace {

// A read-only private mapping of the input; empty for a 0-byte file.
class Mapping {
public:
    Mapping(int fd, std::uint64_t size) : m_size(size) {
        if (size == 0) return;
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            throw core::FileError(core::ErrorCode::storage_error, "The stored file cannot be mapped into memory.",
                                  true);
        }
        m_data = p;
        ::madvise(p, size, MADV_SEQUENTIAL);
    }
    ~Mapping() {
        if (m_data != nullptr) ::munmap(m_data, m_size);
    }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    std::span<const unsigned char> bytes() const {
        return {static_cast<const unsigned char*>(m_data), static_cast<std::size_t>(m_size)};
    }

private:
    void* m_data = nullptr;
    std::uint64_t m_size = 0;
};

std::string format_confidence(double c) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", c);
    return buf;
}

struct Fields {
    std::vector<std::pair<std::string, std::string>> list;
    void set(std::string k, std::string v) { list.emplace_back(std::move(k), std::move(v)); }
    bool has(const std::string& k) const {
        return std::any_of(list.begin(), list.end(), [&](const auto& kv) { return kv.first == k; });
    }
};

extractors::TextResult run_text(extractors::Kind kind, const std::string& mime, std::span<const unsigned char> bytes,
                                const PipelineOptions& options, bool& applicable) {
    const extractors::TextOptions& t = options;
    applicable = true;
    switch (kind) {
    case extractors::Kind::text:
        return extractors::extract_plain_text(bytes);
    case extractors::Kind::pdf:
        return extractors::extract_pdf_text(bytes, t);
    case extractors::Kind::image:
        if (extractors::is_ocr_image(mime) && t.ocr_mode != extractors::OcrMode::off) {
            return extractors::extract_image_text(bytes, mime, t);
        }
        break;
    case extractors::Kind::other:
        break;
    }
    applicable = false;
    return {};
}

thumbnails::Result run_thumbnails(extractors::Kind kind, const std::string& mime, std::span<const unsigned char> bytes,
                                  const PipelineOptions& options, bool& applicable) {
    const thumbnails::Options& o = options;
    applicable = true;
    if (kind == extractors::Kind::pdf) return thumbnails::render_pdf(bytes, o);
    if (kind == extractors::Kind::image && thumbnails::is_supported_image(mime)) {
        return thumbnails::render_image(bytes, o);
    }
    applicable = false;
    return {};
}

} // namespace

PipelineResult analyse(int fd, std::uint64_t size, const std::string& content_hash, const JobSpec& spec,
                       const PipelineOptions& options, const std::string& detected_type) {
    PipelineResult result;
    result.content_hash = content_hash;
    Fields f;
    f.set("content_hash", content_hash);
    f.set("size_bytes", std::to_string(size));
    const std::string mime = !detected_type.empty() ? detected_type
                             : size == 0            ? "application/x-empty"
                                                    : extractors::detect_content_type(fd);
    f.set("content_type", mime);
    const extractors::Kind kind = extractors::kind_of(mime);
    if (kind == extractors::Kind::other) return unparsed_result(size, content_hash, spec, mime);

    const bool needs_bytes = kind != extractors::Kind::other && size > 0;
    std::optional<Mapping> map;
    if (needs_bytes) map.emplace(fd, size);
    std::span<const unsigned char> bytes = map ? map->bytes() : std::span<const unsigned char>{};

    std::string first_error_code, first_error;
    auto step_error = [&](const std::string& prefix, core::ErrorCode error_code, const std::string& message) {
        const std::string code(core::to_string(error_code));
        f.set(prefix + "_status", "failed");
        f.set(prefix + "_error_code", code);
        f.set(prefix + "_error", message);
        if (first_error_code.empty()) {
            first_error_code = code;
            first_error = message;
        }
        result.step_failed = true;
    };

    if (spec.step_text) {
        bool applicable = false;
        extractors::TextResult t;
        try {
            t = run_text(kind, mime, bytes, options, applicable);
        } catch (const std::bad_alloc&) {
            t = {};
            applicable = true;
            t.error =
                extractors::StepError{core::ErrorCode::memory_limit, "Text extraction ran out of its memory budget."};
        }
        if (!applicable) {
            f.set("extraction_status", "not_applicable");
        } else {
            if (t.error) {
                step_error("extraction", t.error->code, t.error->message);
            } else {
                f.set("extraction_status", "done");
            }
            const bool has_text = !t.error || !t.text.empty();
            if (has_text) {
                std::size_t cut = extractors::utf8_prefix_length(t.text, options.max_text_bytes);
                f.set("extracted_text_bytes", std::to_string(t.text.size()));
                if (cut < t.text.size()) {
                    std::string key = "text/" + spec.file_id + ".txt";
                    f.set("extracted_text_key", key);
                    f.set("extracted_text", t.text.substr(0, cut));
                    result.outputs.push_back({key, std::move(t.text)});
                } else {
                    f.set("extracted_text", std::move(t.text));
                }
                if (!t.method.empty()) f.set("extraction_method", t.method);
            }
            if (t.page_count) f.set("page_count", std::to_string(*t.page_count));
            if (t.pages_read) f.set("pages_read", std::to_string(*t.pages_read));
            if (t.ocr_pages) f.set("ocr_pages", std::to_string(*t.ocr_pages));
            if (t.ocr_confidence) f.set("ocr_confidence", format_confidence(*t.ocr_confidence));
        }
    }

    if (spec.step_thumbnails) {
        bool applicable = false;
        thumbnails::Result r;
        try {
            r = run_thumbnails(kind, mime, bytes, options, applicable);
        } catch (const std::bad_alloc&) {
            r = {};
            applicable = true;
            r.error = thumbnails::Result::Error{core::ErrorCode::memory_limit,
                                                "Thumbnail rendering ran out of its memory budget."};
        }
        if (!applicable) {
            f.set("thumbnail_status", "not_applicable");
        } else if (r.error) {
            step_error("thumbnail", r.error->code, r.error->message);
        } else {
            f.set("thumbnail_status", "done");
            for (auto& t : r.thumbnails) {
                std::string key = "thumbnails/" + spec.file_id + "/" + std::to_string(t.size) + ".webp";
                f.set("thumbnail_" + std::to_string(t.size) + "_key", key);
                result.outputs.push_back({key, std::move(t.webp)});
            }
        }
        if (r.width && r.height) {
            f.set("width", std::to_string(*r.width));
            f.set("height", std::to_string(*r.height));
        }
    }

    if (!first_error_code.empty()) {
        f.set("error_code", first_error_code);
        f.set("error", first_error);
    } else if (spec.step_text && spec.step_thumbnails) {
        result.clear.push_back("error_code");
        result.clear.push_back("error");
    }
    for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
        if (!f.has(name)) result.clear.push_back(name);
    }
    result.clear.push_back("deduplicated_from");
    result.fields = std::move(f.list);
    return result;
}

PipelineResult run_pipeline(int fd, std::uint64_t size, const JobSpec& spec, const PipelineOptions& options) {
    std::string hash;
    try {
        hash = hash_and_check(fd, size, spec);
    } catch (const core::FileError& e) {
        return file_failure(e.code(), e.what());
    }
    return analyse(fd, size, hash, spec, options);
}

} // namespace worker

#include "worker/pipeline.hpp"

#include "extractors/content_type.hpp"
#include "extractors/hash.hpp"
#include "extractors/image_text.hpp"
#include "extractors/pdf_text.hpp"
#include "extractors/plain_text.hpp"
#include "extractors/text_clean.hpp"
#include "thumbnails/thumbnailer.hpp"
#include "worker/storage.hpp"
#include "worker/version.hpp"

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
            throw FileError("storage_error", "The stored file cannot be mapped into memory.", true);
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

extractors::OcrMode ocr_mode_of(const std::string& s) {
    if (s == "force") return extractors::OcrMode::force;
    if (s == "off") return extractors::OcrMode::off;
    return extractors::OcrMode::automatic;
}

const std::vector<std::string>& text_fields() {
    static const std::vector<std::string> f = {
        "extraction_status", "extracted_text", "extracted_text_bytes", "extracted_text_key",
        "extraction_method", "page_count", "pages_read", "ocr_pages", "ocr_confidence",
        "extraction_error_code", "extraction_error"};
    return f;
}

const std::vector<std::string>& thumbnail_fields() {
    static const std::vector<std::string> f = {
        "thumbnail_status", "thumbnail_72_key", "thumbnail_144_key", "thumbnail_288_key",
        "width", "height", "thumbnail_error_code", "thumbnail_error"};
    return f;
}

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

extractors::TextResult run_text(extractors::Kind kind, const std::string& mime,
                                std::span<const unsigned char> bytes,
                                const PipelineOptions& options, bool& applicable) {
    extractors::TextOptions t;
    t.ocr_mode = ocr_mode_of(options.ocr_mode);
    t.max_pages = options.max_pages;
    t.max_ocr_pages = options.max_ocr_pages;
    t.max_pixels = options.max_pixels;
    t.ocr_langs = options.ocr_langs;
    t.deadline = options.deadline;
    t.pdf_threads = options.pdf_threads;
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

thumbnails::Result run_thumbnails(extractors::Kind kind, const std::string& mime,
                                  std::span<const unsigned char> bytes,
                                  const PipelineOptions& options, bool& applicable) {
    thumbnails::Options o;
    o.max_pixels = options.max_pixels;
    o.webp_quality = options.webp_quality;
    o.deadline = options.deadline;
    applicable = true;
    if (kind == extractors::Kind::pdf) return thumbnails::render_pdf(bytes, o);
    if (kind == extractors::Kind::image && thumbnails::is_supported_image(mime)) {
        return thumbnails::render_image(bytes, o);
    }
    applicable = false;
    return {};
}

} // namespace

PipelineOptions PipelineOptions::from(const Config& c) {
    PipelineOptions o;
    o.ocr_mode = c.ocr_mode;
    o.ocr_langs = c.ocr_langs;
    o.max_pages = c.max_pages;
    o.max_ocr_pages = c.max_ocr_pages;
    o.max_pixels = c.max_pixels;
    o.max_text_bytes = c.max_text_bytes;
    o.webp_quality = c.webp_quality;
    // The worker's jobs share the cores; a PDF's text layer may use the share of one job.
    o.pdf_threads = std::max(1, machine_cores() / std::max(1, c.concurrency));
    return o;
}

int machine_cores() {
    const unsigned cores = std::thread::hardware_concurrency();
    return cores == 0 ? 1 : static_cast<int>(std::min(cores, 1024u));
}

std::vector<std::string> step_fields(bool text, bool thumbnails) {
    std::vector<std::string> out;
    if (text) out.insert(out.end(), text_fields().begin(), text_fields().end());
    if (thumbnails) out.insert(out.end(), thumbnail_fields().begin(), thumbnail_fields().end());
    return out;
}

std::string hash_and_check(int fd, std::uint64_t size, const JobSpec& spec) {
    extractors::HashResult h;
    try {
        h = extractors::sha256_fd(fd);
    } catch (const extractors::ReadError& e) {
        throw FileError("storage_error", std::string("The stored file cannot be read: ") + e.what() + ".", true);
    }
    if (spec.expected_size && *spec.expected_size != h.bytes) {
        throw FileError("size_mismatch", "The file is " + std::to_string(h.bytes) +
                                             " bytes but the event declared " +
                                             std::to_string(*spec.expected_size) + ".");
    }
    if (!spec.expected_sha256.empty() && spec.expected_sha256 != h.sha256_hex) {
        throw FileError("hash_mismatch", "The file's SHA-256 is " + h.sha256_hex +
                                             " but the event declared " + spec.expected_sha256 + ".");
    }
    (void)size;
    return h.sha256_hex;
}

PipelineResult analyse(int fd, std::uint64_t size, const std::string& content_hash,
                       const JobSpec& spec, const PipelineOptions& options) {
    PipelineResult result;
    result.content_hash = content_hash;
    Fields f;
    f.set("content_hash", content_hash);
    f.set("size_bytes", std::to_string(size));
    const std::string mime = size == 0 ? "application/x-empty" : extractors::detect_content_type(fd);
    f.set("content_type", mime);
    const extractors::Kind kind = extractors::kind_of(mime);

    const bool needs_bytes = kind != extractors::Kind::other && size > 0;
    std::optional<Mapping> map;
    if (needs_bytes) map.emplace(fd, size);
    std::span<const unsigned char> bytes = map ? map->bytes() : std::span<const unsigned char>{};

    std::string first_error_code, first_error;
    auto step_error = [&](const std::string& prefix, const std::string& code, const std::string& message) {
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
            t.error = extractors::StepError{"memory_limit", "Text extraction ran out of its memory budget."};
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
            r.error = thumbnails::Result::Error{"memory_limit", "Thumbnail rendering ran out of its memory budget."};
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

PipelineResult file_failure(const std::string& code, const std::string& message) {
    PipelineResult r;
    r.file_error_code = code;
    r.file_error = message;
    r.fields = {{"error_code", code}, {"error", message}};
    r.clear = step_fields(true, true);
    for (const char* k : {"content_hash", "size_bytes", "content_type", "deduplicated_from"}) {
        r.clear.emplace_back(k);
    }
    return r;
}

PipelineResult run_pipeline(int fd, std::uint64_t size, const JobSpec& spec,
                            const PipelineOptions& options) {
    std::string hash;
    try {
        hash = hash_and_check(fd, size, spec);
    } catch (const FileError& e) {
        return file_failure(e.code(), e.what());
    }
    return analyse(fd, size, hash, spec, options);
}

std::string pipeline_version(const std::string& ocr_langs) {
    static std::mutex mu;
    static std::string cached_langs, cached;
    std::lock_guard lock(mu);
    if (cached.empty() || cached_langs != ocr_langs) {
        cached = std::string("ingestd ") + k_version + "; " + thumbnails_version() + "; " +
                 extractors::ocr_version(ocr_langs);
        cached_langs = ocr_langs;
    }
    return cached;
}

} // namespace worker

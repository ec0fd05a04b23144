// analyse(): type -> the extractor and the renderer registered for it -> fields. No step
// here knows a format: a new one is a row in extractors/registry.cpp or
// thumbnails/registry.cpp.
#include "core/file_error.hpp"
#include "core/layout.hpp"
#include "extractors/document_type.hpp"
#include "extractors/image_header.hpp"
#include "extractors/page_share.hpp"
#include "extractors/registry.hpp"
#include "extractors/sniff/content_type.hpp"
#include "extractors/text_sink.hpp"
#include "thumbnails/registry.hpp"
#include "worker/helper/process/decode_gate.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <algorithm>
#include <cstdio>
#include <new>
#include <optional>
#include <span>
#include <system_error>

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

// The result of one analyse() call as its steps fill it in.
class Outcome {
public:
    explicit Outcome(const std::string& content_hash) { m_result.content_hash = content_hash; }

    void set(std::string key, std::string value) { m_result.fields.emplace_back(std::move(key), std::move(value)); }

    void add_output(std::string key, std::string bytes) {
        m_result.outputs.push_back({std::move(key), std::move(bytes), nullptr, 0});
    }

    void add_output_file(std::string key, std::shared_ptr<core::Fd> file, std::uint64_t size) {
        m_result.outputs.push_back({std::move(key), {}, std::move(file), size});
    }

    // A step's failure: `<prefix>_status=failed`, its code and sentence, the typed value in
    // `slot`, and the file's first failure when it is the first.
    void step_failed(const std::string& prefix, const core::Failure& failure, std::optional<core::Failure>& slot) {
        set(prefix + "_status", "failed");
        set(prefix + "_error_code", std::string(core::to_string(failure.code)));
        set(prefix + "_error", failure.message);
        slot = failure;
        if (!m_first_error) m_first_error = failure;
        m_result.step_failed = true;
    }

    void text_failed(const core::Failure& failure) { step_failed("extraction", failure, m_result.text_error); }
    void thumbnail_failed(const core::Failure& failure) { step_failed("thumbnail", failure, m_result.thumbnail_error); }

    // The file-wide error fields, and the clearing of every step field this run did not set.
    PipelineResult finish(const JobSpec& spec) && {
        if (m_first_error) {
            set("error_code", std::string(core::to_string(m_first_error->code)));
            set("error", m_first_error->message);
        } else if (spec.step_text && spec.step_thumbnails) {
            m_result.clear.push_back("error_code");
            m_result.clear.push_back("error");
        }
        for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
            if (!has(name)) m_result.clear.push_back(name);
        }
        m_result.clear.push_back("deduplicated_from");
        return std::move(m_result);
    }

private:
    bool has(const std::string& key) const {
        return std::any_of(m_result.fields.begin(), m_result.fields.end(),
                           [&](const auto& kv) { return kv.first == key; });
    }

    PipelineResult m_result;
    std::optional<core::Failure> m_first_error;
};

// Runs one step; running out of memory inside it is that step's memory_limit failure, not
// the helper's (the bytes, not the worker, were too much).
// A system error (a scratch file that cannot be written: the helper's folder full, or past
// its file-size limit) stops the step like a crash: nothing about the bytes is learnt.
core::Failure scratch_failure(const char* what, const std::system_error& e) {
    return {core::ErrorCode::crashed, std::string(what) + " stopped on a system error (" + e.what() + ")."};
}

template <typename StepResult, typename Run> StepResult run_step(Run&& run, const char* what) {
    try {
        return run();
    } catch (const std::bad_alloc&) {
        StepResult failed;
        failed.error =
            core::Failure{core::ErrorCode::memory_limit, std::string(what) + " ran out of its memory budget."};
        return failed;
    } catch (const std::system_error& e) {
        StepResult failed;
        failed.error = scratch_failure(what, e);
        return failed;
    }
}

void add_text(Outcome& out, extractors::TextResult t, const JobSpec& spec, const PipelineOptions& options) {
    try {
        // A text longer than the inline limit leaves the helper as a file, never in a message.
        extractors::spill_long_text(t, options.max_text_bytes);
    } catch (const std::system_error& e) {
        t = {};
        t.error = scratch_failure("Text extraction", e);
    }
    if (t.error) {
        out.text_failed(*t.error);
    } else {
        out.set("extraction_status", "done");
    }
    // A failed step keeps what it read before the failure (a timeout keeps pages done).
    if (!t.error || !t.text.empty() || t.spill) {
        if (t.spill) {
            const std::string key = core::text_key(spec.file_id);
            out.set("extracted_text_bytes", std::to_string(t.spill_bytes));
            out.set("extracted_text_key", key);
            out.add_output_file(key, std::move(t.spill), t.spill_bytes);
        } else {
            out.set("extracted_text_bytes", std::to_string(t.text.size()));
        }
        out.set("extracted_text", std::move(t.text));
        if (!t.method.empty()) out.set("extraction_method", t.method);
    }
    if (t.page_count) out.set("page_count", std::to_string(*t.page_count));
    if (t.pages_read) out.set("pages_read", std::to_string(*t.pages_read));
    if (t.ocr_pages) out.set("ocr_pages", std::to_string(*t.ocr_pages));
    if (t.ocr_pages) out.set("ocr_langs", options.ocr_langs); // the languages OCR used
    if (t.ocr_confidence) out.set("ocr_confidence", format_confidence(*t.ocr_confidence));
}

void add_thumbnails(Outcome& out, thumbnails::Result r, const JobSpec& spec) {
    if (r.error) {
        out.thumbnail_failed(*r.error);
    } else if (r.not_applicable) {
        out.set("thumbnail_status", "not_applicable");
    } else {
        out.set("thumbnail_status", "done");
        for (auto& t : r.thumbnails) {
            const std::string key = core::thumbnail_key(spec.file_id, t.size);
            out.set(core::thumbnail_field(t.size), key);
            out.add_output(key, std::move(t.webp));
        }
    }
    if (r.width && r.height) {
        out.set("width", std::to_string(*r.width));
        out.set("height", std::to_string(*r.height));
    }
}

} // namespace

PipelineResult analyse(int fd, std::uint64_t size, const std::string& content_hash, const JobSpec& spec,
                       const PipelineOptions& options, const std::string& detected_type) {
    const std::string mime = !detected_type.empty() ? detected_type
                             : size == 0            ? "application/x-empty"
                                         : extractors::refine_content_type(fd, extractors::detect_content_type(fd));
    const extractors::Extractor* extractor = extractors::find_extractor(mime);
    if (extractor != nullptr && !extractor->runs_with(options)) extractor = nullptr;
    const thumbnails::Renderer* renderer = thumbnails::find_renderer(mime);
    if (!(spec.step_text && extractor) && !(spec.step_thumbnails && renderer)) {
        return unparsed_result(size, content_hash, spec, mime);
    }
    // Mapped only for the steps that read a mapping (a streamed extractor reads the descriptor).
    std::optional<Mapping> map;
    auto bytes = [&] {
        if (!map) map.emplace(fd, size);
        return map->bytes();
    };

    // A file whose decode holds its whole image (a large progressive JPEG) waits for any other
    // helper of the worker decoding one: one such at a time keeps the worker's memory bounded.
    const LargeDecodeHold large(extractors::whole_image_bytes(bytes(), mime));
    // A PDF's page 1 drawn by OCR is the thumbnailer's too: drawn once when both steps run.
    const extractors::FirstPageShare share(spec.step_text && extractor && spec.step_thumbnails && renderer);
    Outcome out(content_hash);
    out.set("content_hash", content_hash);
    out.set("size_bytes", std::to_string(size));
    out.set("content_type", mime);
    if (spec.step_text && !extractor) {
        out.set("extraction_status", "not_applicable");
    } else if (spec.step_text) {
        add_text(out,
                 run_step<extractors::TextResult>(
                     [&] {
                         return extractor->extract_file ? extractor->extract_file(fd, size, mime, options)
                                                        : extractor->extract(bytes(), mime, options);
                     },
                     "Text extraction"),
                 spec, options);
    }
    if (spec.step_thumbnails && !renderer) {
        out.set("thumbnail_status", "not_applicable");
    } else if (spec.step_thumbnails) {
        add_thumbnails(
            out,
            run_step<thumbnails::Result>([&] { return renderer->render(bytes(), options); }, "Thumbnail rendering"),
            spec);
    }
    return std::move(out).finish(spec);
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

// The parts of the pipeline the worker process itself needs (options, the hash check,
// the result of an unparsed file, the pipeline version), apart from pipeline.cpp so that
// the worker links no parser library: those are loaded only by `ingestd-helper`.
#include "worker/pipeline/pipeline.hpp"

#include "extractors/sniff/hash.hpp"
#include "extractors/sniff/ocr_langs.hpp"
#include "worker/config/version.hpp"
#include "worker/storage/store.hpp"

#include <algorithm>
#include <mutex>
#include <thread>

namespace worker {

PipelineOptions pipeline_options(const Config& c) {
    PipelineOptions o;
    const auto mode = core::parse_ocr_mode(c.ocr_mode);
    if (!mode) throw ConfigError("INGEST_OCR_MODE must be auto, force or off, not '" + c.ocr_mode + "'");
    o.ocr_mode = *mode;
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

std::string hash_and_check(int fd, std::uint64_t size, const JobSpec& spec, const std::string& known_sha256) {
    extractors::HashResult h{known_sha256, size};
    try {
        if (known_sha256.empty()) h = extractors::sha256_fd(fd); // else the store hashed it as it arrived
    } catch (const extractors::ReadError& e) {
        throw core::FileError(core::ErrorCode::storage_error,
                              std::string("The stored file cannot be read: ") + e.what() + ".", true);
    }
    if (h.bytes != size) {
        // Truncated or grown while it was read: neither version's hash; read it again later.
        throw core::FileError(core::ErrorCode::storage_error,
                              "The stored file changed while it was read (" + std::to_string(size) +
                                  " bytes at open, " + std::to_string(h.bytes) + " read).",
                              true);
    }
    if (spec.expected_size && *spec.expected_size != h.bytes) {
        throw core::FileError(core::ErrorCode::size_mismatch, "The file is " + std::to_string(h.bytes) +
                                                                  " bytes but the event declared " +
                                                                  std::to_string(*spec.expected_size) + ".");
    }
    if (!spec.expected_sha256.empty() && spec.expected_sha256 != h.sha256_hex) {
        throw core::FileError(core::ErrorCode::hash_mismatch, "The file's SHA-256 is " + h.sha256_hex +
                                                                  " but the event declared " + spec.expected_sha256 +
                                                                  ".");
    }
    return h.sha256_hex;
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

void write_outputs(const Store& store, const std::vector<OutputFile>& outputs) {
    for (const auto& out : outputs) {
        if (out.file) {
            store.write_from(out.key, out.file->get());
        } else {
            store.write(out.key, out.bytes);
        }
    }
}

PipelineResult unparsed_result(std::uint64_t size, const std::string& content_hash, const JobSpec& spec,
                               const std::string& mime) {
    PipelineResult result;
    result.content_hash = content_hash;
    result.fields = {{"content_hash", content_hash}, {"size_bytes", std::to_string(size)}, {"content_type", mime}};
    if (spec.step_text) result.fields.emplace_back(status_field(Step::text), "not_applicable");
    if (spec.step_thumbnails) result.fields.emplace_back(status_field(Step::thumbnails), "not_applicable");
    if (spec.step_text && spec.step_thumbnails) {
        result.clear = {"error_code", "error"};
    }
    for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
        if (name != status_field(Step::text) && name != status_field(Step::thumbnails)) result.clear.push_back(name);
    }
    result.clear.push_back("deduplicated_from");
    return result;
}

} // namespace worker

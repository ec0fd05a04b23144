#pragma once

#include "core/error_code.hpp"
#include "core/options.hpp"
#include "worker/config/config.hpp"
#include "worker/pipeline/result.hpp"
#include "worker/pipeline/step.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace worker {

class Store;

/// What one file's processing needs besides its bytes: plain values, no Redis.
struct JobSpec {
    std::string file_id;
    bool step_text = true;
    bool step_thumbnails = true;
    std::optional<std::uint64_t> expected_size;
    std::string expected_sha256;
};

/// Limits and settings of the pipeline: the one options value (core/options.hpp).
using PipelineOptions = core::Options;

/// The options of the configuration (pdf_threads from the cores each job may use).
/// Throws ConfigError for an unknown INGEST_OCR_MODE.
PipelineOptions pipeline_options(const Config& config);

/// Cores of this machine, at least 1 (`ingestd process`, one file at a time, gives a PDF all).
int machine_cores();

/// Hashes the input (unless `known_sha256`, the store's hash of the same bytes, is given),
/// checks declared size and digest. Throws core::FileError (size_mismatch,
/// hash_mismatch, storage_error) on a file-level failure.
std::string hash_and_check(int fd, std::uint64_t size, const JobSpec& spec, const std::string& known_sha256 = {});

/// Detects the type and runs the steps on an open input whose hash is known: the part
/// that parses untrusted bytes. Never throws for bad content (steps fail as values);
/// throws std::bad_alloc when memory runs out. `detected_type`: the libmagic verdict when
/// the caller already has it (the helper reports it before the steps run).
PipelineResult analyse(int fd, std::uint64_t size, const std::string& content_hash, const JobSpec& spec,
                       const PipelineOptions& options, const std::string& detected_type = {});

/// hash_and_check then analyse, with file-level failures turned into the result.
PipelineResult run_pipeline(int fd, std::uint64_t size, const JobSpec& spec, const PipelineOptions& options);

/// What analyse() gives a file of a type no step applies to (`mime` detected from the
/// bytes, kind other, or an empty file): both steps not_applicable. Needs no parser.
PipelineResult unparsed_result(std::uint64_t size, const std::string& content_hash, const JobSpec& spec,
                               const std::string& mime);

/// Writes every output of a result to `store` (Store::write, or Store::write_from for one held
/// in a file). Throws core::FileError.
void write_outputs(const Store& store, const std::vector<OutputFile>& outputs);

/// "ingestd 0.1.0; libvips 8.14.1; poppler 22.12.0; tesseract 5.3.0 (eng ...)".
std::string pipeline_version(const std::string& ocr_langs);

} // namespace worker

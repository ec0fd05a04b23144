#pragma once

#include "core/error_code.hpp"
#include "core/fd.hpp"
#include "worker/pipeline/step.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace worker {

/// A file produced for the store, by key relative to the storage root: its bytes in memory,
/// or (a long spilled text) in the unlinked file `file`, `file_size` bytes from offset 0.
struct OutputFile {
    std::string key;
    std::string bytes;
    std::shared_ptr<core::Fd> file;
    std::uint64_t file_size = 0;

    /// The output's length in bytes.
    std::uint64_t size() const { return file ? file_size : bytes.size(); }
};

/// Everything one file's processing produced: the metadata fields to set, the step-owned
/// fields to delete (those of steps that ran but have no value now), and output files.
/// `file_error_code` set means the whole file failed (status=failed).
struct PipelineResult {
    std::optional<core::ErrorCode> file_error_code;
    std::string file_error;
    std::string content_hash;
    std::vector<std::pair<std::string, std::string>> fields;
    std::vector<std::string> clear;
    std::vector<OutputFile> outputs;
    bool step_failed = false; // some step failed (status stays done)
    /// The typed failure of each step that failed (what the `<step>_error_code` fields say),
    /// so that decisions (reuse, metrics, logs) read values, not field names.
    std::optional<core::Failure> text_error;
    std::optional<core::Failure> thumbnail_error;

    /// True when a step was stopped by a limit of the job or a crash (core::stopped_parser):
    /// such a result says nothing lasting about the bytes.
    bool parser_stopped() const {
        return (text_error && core::stopped_parser(text_error->code)) ||
               (thumbnail_error && core::stopped_parser(thumbnail_error->code));
    }
};

/// The value of the field `name` in `r.fields`, or nullptr when it is not set.
const std::string* find_field(const PipelineResult& r, std::string_view name);

/// The typed failure of `step` in `r`: `text_error` or `thumbnail_error`.
const std::optional<core::Failure>& step_failure(const PipelineResult& r, Step step);
std::optional<core::Failure>& step_failure(PipelineResult& r, Step step);

/// Records that `step` failed: appends its `<prefix>_status=failed`, `_error_code` and
/// `_error` fields and sets its typed failure and `step_failed`, so that they agree.
void fail_step(PipelineResult& r, Step step, const core::Failure& failure);

/// "" when each step's typed failure says what its fields say (a failed status with a
/// known step-level code and a message, and the same code and message typed; no error
/// fields and no typed failure otherwise), else the first disagreement.
std::string check_step_failures(const PipelineResult& r);

/// One result of a file whose steps ran apart (thumbnails first, then text): the text run's
/// result with the thumbnail run's fields and clears added (its outputs are not: they were
/// written when it was committed early), and the file's first failure taken again in the order
/// the steps run together (text first). A whole-file failure of the text run is the result.
PipelineResult join_steps(PipelineResult thumbnails, PipelineResult text);

/// Builds the fields of a whole-file failure (no step failure: the steps' fields are cleared).
PipelineResult file_failure(core::ErrorCode code, const std::string& message);

} // namespace worker

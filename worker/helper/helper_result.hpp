#pragma once

#include "core/error_code.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace worker {

/// Merges the helper's per-step results (text fields first) and, for the steps of `spec`
/// that did not finish, the failure that stopped them (`stopped`; nullopt: none), as fields
/// and as typed step failures that agree; adds the file's first failure as `error_code`.
PipelineResult combine_results(const std::vector<PipelineResult>& parts, const JobSpec& spec, const std::string& hash,
                               std::uint64_t size, const std::string& content_type,
                               const std::optional<core::Failure>& stopped);

/// Checks a helper's result before adoption: known fields only, UTF-8 text, the expected
/// output keys (core/layout.hpp), WebP files that are WebP and not too large, typed step
/// failures that agree with the fields. Returns the problem, or "".
std::string validate_result(const PipelineResult& r, const JobSpec& spec, const std::string& hash, std::uint64_t size,
                            const PipelineOptions& options);

/// Checks the content type a helper reported: at most 255 bytes of UTF-8. The problem, or "".
std::string validate_content_type(const std::string& content_type);

} // namespace worker

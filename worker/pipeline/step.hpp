#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace worker {

/// The two steps of the spec a file may run: text extraction and thumbnails.
enum class Step { text, thumbnails };

/// Both steps, text first (the order of their fields in a result).
inline constexpr std::array<Step, 2> k_steps{Step::text, Step::thumbnails};

/// The prefix of a step's status and error fields: "extraction" or "thumbnail".
std::string_view field_prefix(Step step);

/// `<prefix>_status`, `<prefix>_error_code` and `<prefix>_error` of a step.
std::string status_field(Step step);
std::string error_code_field(Step step);
std::string error_field(Step step);

/// The metadata fields owned by the text step and by the thumbnail step (the thumbnail key
/// fields are those of core::k_thumbnail_sizes).
const std::vector<std::string>& text_fields();
const std::vector<std::string>& thumbnail_fields();

/// Every field a commit of these steps owns, for clearing what a step no longer sets.
std::vector<std::string> step_fields(bool text, bool thumbnails);

} // namespace worker

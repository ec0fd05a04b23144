#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace core {

/// The spec's error codes ("The metadata", error levels). The text form is what metadata,
/// logs and metrics carry.
enum class ErrorCode {
    // file level: status=failed
    invalid_event,
    storage_missing,
    storage_error,
    not_regular_file,
    too_large,
    size_mismatch,
    hash_mismatch,
    gave_up,
    // step level: <step>_status=failed, status=done
    corrupt_file,
    unsupported_format,
    encrypted_pdf,
    encrypted_document,
    too_many_pixels,
    too_large_unpacked,
    timeout,
    memory_limit,
    crashed,
};

/// The spec's text form ("storage_missing"). Never fails.
std::string_view to_string(ErrorCode code);

/// The code whose text form is `text`, or nullopt for anything else.
std::optional<ErrorCode> parse_error_code(std::string_view text);

/// True for the codes that fail the whole file (status=failed).
bool is_file_level(ErrorCode code);

/// True when the code says the parser was stopped (a limit of the job or a crash), not what
/// the bytes are: such a result says nothing lasting and is not offered for reuse.
bool stopped_parser(ErrorCode code);

/// Writes the text form (for logs and test messages).
std::ostream& operator<<(std::ostream& out, ErrorCode code);

/// One failure: its code and one readable sentence (library detail goes to the log).
struct Failure {
    Failure() = default;
    Failure(ErrorCode c, std::string m, std::string d = {}) : code(c), message(std::move(m)), detail(std::move(d)) {}

    ErrorCode code{};
    std::string message; // the sentence users see (`error`, `<step>_error`)
    std::string detail;  // the library's own words, for the log only; empty when none
};

} // namespace core

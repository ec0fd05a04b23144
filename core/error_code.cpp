#include "core/error_code.hpp"

#include <array>
#include <ostream>
#include <utility>

namespace core {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 17> k_names{{
    {ErrorCode::invalid_event, "invalid_event"},
    {ErrorCode::storage_missing, "storage_missing"},
    {ErrorCode::storage_error, "storage_error"},
    {ErrorCode::not_regular_file, "not_regular_file"},
    {ErrorCode::too_large, "too_large"},
    {ErrorCode::size_mismatch, "size_mismatch"},
    {ErrorCode::hash_mismatch, "hash_mismatch"},
    {ErrorCode::gave_up, "gave_up"},
    {ErrorCode::corrupt_file, "corrupt_file"},
    {ErrorCode::unsupported_format, "unsupported_format"},
    {ErrorCode::encrypted_pdf, "encrypted_pdf"},
    {ErrorCode::encrypted_document, "encrypted_document"},
    {ErrorCode::too_many_pixels, "too_many_pixels"},
    {ErrorCode::too_large_unpacked, "too_large_unpacked"},
    {ErrorCode::timeout, "timeout"},
    {ErrorCode::memory_limit, "memory_limit"},
    {ErrorCode::crashed, "crashed"},
}};

} // namespace

std::string_view to_string(ErrorCode code) {
    for (const auto& [c, name] : k_names) {
        if (c == code) return name;
    }
    return "crashed"; // unreachable: every enumerator has a row
}

std::optional<ErrorCode> parse_error_code(std::string_view text) {
    for (const auto& [c, name] : k_names) {
        if (name == text) return c;
    }
    return std::nullopt;
}

bool is_file_level(ErrorCode code) {
    return static_cast<int>(code) <= static_cast<int>(ErrorCode::gave_up);
}

bool stopped_parser(ErrorCode code) {
    return code == ErrorCode::timeout || code == ErrorCode::memory_limit || code == ErrorCode::crashed;
}

std::ostream& operator<<(std::ostream& out, ErrorCode code) {
    return out << to_string(code);
}

} // namespace core

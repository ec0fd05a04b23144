#pragma once

#include <string>
#include <string_view>

namespace extractors {

/// Returns `in` as valid UTF-8: invalid sequences become U+FFFD and control characters
/// other than newline, tab and form feed are removed (carriage returns become newlines
/// when they end a line). Thread-safe.
std::string clean_text(std::string_view in);

/// Decodes `in` as text: a UTF-8, UTF-16 or UTF-32 byte-order mark is honoured (the
/// mark itself dropped), everything else is taken as UTF-8; then `clean_text`.
std::string decode_text(std::string_view in);

/// Largest prefix length of the valid UTF-8 string `s` that is at most `max_bytes` and
/// does not cut a character in half.
std::size_t utf8_prefix_length(std::string_view s, std::size_t max_bytes);

} // namespace extractors

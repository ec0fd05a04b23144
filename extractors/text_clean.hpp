#pragma once

#include <cstddef>
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

/// decode_text in pieces, for a text too large to hold: feed() appends the clean UTF-8 of
/// each chunk to `out` (a character cut by a chunk's end waits for the next chunk), finish()
/// the rest. Feeding a text in any chunks gives what decode_text gives for the whole. One
/// decoder per text; not thread-safe.
class TextDecoder {
public:
    void feed(std::string_view chunk, std::string& out);
    void finish(std::string& out);

private:
    enum class Encoding { utf8, utf16_be, utf16_le, utf32_be, utf32_le };
    std::size_t detect(std::string_view in, bool final);
    std::size_t decode(std::string_view in, bool final, std::string& out);

    bool m_detected = false;
    Encoding m_encoding = Encoding::utf8;
    bool m_pending_cr = false;
    std::string m_carry; // the bytes of a unit that the next chunk completes (a few bytes)
};

/// Largest prefix length of the valid UTF-8 string `s` that is at most `max_bytes` and
/// does not cut a character in half.
std::size_t utf8_prefix_length(std::string_view s, std::size_t max_bytes);

} // namespace extractors

#include "extractors/text_clean.hpp"

#include <cstdint>

namespace extractors {
namespace {

constexpr char32_t k_replacement = 0xFFFD;

void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// Decodes one UTF-8 sequence at `i`; returns the code point and advances `i`, or returns
// U+FFFD and advances past the longest invalid prefix (one byte), as WHATWG decoders do.
char32_t next_utf8(std::string_view s, std::size_t& i) {
    auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        ++i;
        return b0;
    }
    int len = 0;
    char32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        len = 2;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        ++i;
        return k_replacement;
    }
    std::size_t j = i + 1;
    for (int k = 1; k < len; ++k, ++j) {
        if (j >= s.size()) {
            i = j;
            return k_replacement;
        }
        auto b = static_cast<unsigned char>(s[j]);
        if (b < lo || b > hi) {
            i = j;
            return k_replacement;
        }
        lo = 0x80;
        hi = 0xBF;
        cp = (cp << 6) | (b & 0x3F);
    }
    i = j;
    return cp;
}

bool keep(char32_t cp) {
    if (cp == '\n' || cp == '\t' || cp == '\f') return true;
    if (cp < 0x20 || cp == 0x7F) return false;
    if (cp >= 0x80 && cp < 0xA0) return false; // C1 controls
    if (cp == 0xFEFF) return false;            // stray byte-order marks
    return true;
}

void push_clean(std::string& out, char32_t cp, bool& pending_cr) {
    if (pending_cr) {
        pending_cr = false;
        out.push_back('\n');
        if (cp == '\n') return;
    }
    if (cp == '\r') {
        pending_cr = true;
        return;
    }
    if (keep(cp)) append_utf8(out, cp);
}

std::string decode_utf16(std::string_view in, bool big_endian) {
    std::string out;
    out.reserve(in.size());
    bool pending_cr = false;
    auto unit = [&](std::size_t k) -> char32_t {
        auto a = static_cast<unsigned char>(in[k]), b = static_cast<unsigned char>(in[k + 1]);
        return big_endian ? (char32_t(a) << 8 | b) : (char32_t(b) << 8 | a);
    };
    std::size_t i = 0;
    while (i + 1 < in.size()) {
        char32_t u = unit(i);
        i += 2;
        if (u >= 0xD800 && u <= 0xDBFF) {
            if (i + 1 < in.size()) {
                char32_t v = unit(i);
                if (v >= 0xDC00 && v <= 0xDFFF) {
                    i += 2;
                    push_clean(out, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00), pending_cr);
                    continue;
                }
            }
            push_clean(out, k_replacement, pending_cr);
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            push_clean(out, k_replacement, pending_cr);
        } else {
            push_clean(out, u, pending_cr);
        }
    }
    if (i < in.size()) push_clean(out, k_replacement, pending_cr);
    if (pending_cr) out.push_back('\n');
    return out;
}

std::string decode_utf32(std::string_view in, bool big_endian) {
    std::string out;
    out.reserve(in.size() / 2);
    bool pending_cr = false;
    std::size_t i = 0;
    for (; i + 3 < in.size(); i += 4) {
        char32_t cp = 0;
        for (int k = 0; k < 4; ++k) {
            auto b = static_cast<unsigned char>(in[i + (big_endian ? k : 3 - k)]);
            cp = (cp << 8) | b;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = k_replacement;
        push_clean(out, cp, pending_cr);
    }
    if (i < in.size()) push_clean(out, k_replacement, pending_cr);
    if (pending_cr) out.push_back('\n');
    return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string clean_text(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    bool pending_cr = false;
    std::size_t i = 0;
    while (i < in.size()) {
        // Fast path for runs of printable ASCII, the bulk of most texts.
        auto c = static_cast<unsigned char>(in[i]);
        if (c >= 0x20 && c < 0x7F && !pending_cr) {
            std::size_t j = i + 1;
            while (j < in.size()) {
                auto d = static_cast<unsigned char>(in[j]);
                if (d < 0x20 || d >= 0x7F) break;
                ++j;
            }
            out.append(in.data() + i, j - i);
            i = j;
            continue;
        }
        push_clean(out, next_utf8(in, i), pending_cr);
    }
    if (pending_cr) out.push_back('\n');
    return out;
}

std::string decode_text(std::string_view in) {
    using namespace std::string_view_literals;
    if (starts_with(in, "\x00\x00\xFE\xFF"sv)) return decode_utf32(in.substr(4), true);
    if (starts_with(in, "\xFF\xFE\x00\x00"sv)) return decode_utf32(in.substr(4), false);
    if (starts_with(in, "\xFE\xFF"sv)) return decode_utf16(in.substr(2), true);
    if (starts_with(in, "\xFF\xFE"sv)) return decode_utf16(in.substr(2), false);
    if (starts_with(in, "\xEF\xBB\xBF"sv)) return clean_text(in.substr(3));
    return clean_text(in);
}

std::size_t utf8_prefix_length(std::string_view s, std::size_t max_bytes) {
    if (s.size() <= max_bytes) return s.size();
    std::size_t n = max_bytes;
    // Step back over continuation bytes to the start of the character that would be cut.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return n;
}

} // namespace extractors

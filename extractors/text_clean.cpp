#include "extractors/text_clean.hpp"

#include <algorithm>
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

// Whether the UTF-8 sequence that starts at `i` runs past the end of `s` (its lead byte asks
// for more bytes than are left): a chunk's tail that the next chunk completes.
bool utf8_cut_short(std::string_view s, std::size_t i) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    const std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 1;
    return i + len > s.size();
}

// The decoders below take one chunk and return how many of its bytes they used; without
// `final` they stop before a unit that the next chunk may complete.
std::size_t decode_utf8_chunk(std::string_view in, bool final, std::string& out, bool& pending_cr) {
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
        if (!final && c >= 0x80 && utf8_cut_short(in, i)) break;
        push_clean(out, next_utf8(in, i), pending_cr);
    }
    return i;
}

std::size_t decode_utf16_chunk(std::string_view in, bool big_endian, bool final, std::string& out, bool& pending_cr) {
    auto unit = [&](std::size_t k) -> char32_t {
        auto a = static_cast<unsigned char>(in[k]), b = static_cast<unsigned char>(in[k + 1]);
        return big_endian ? (char32_t(a) << 8 | b) : (char32_t(b) << 8 | a);
    };
    std::size_t i = 0;
    while (i + 1 < in.size()) {
        char32_t u = unit(i);
        if (u >= 0xD800 && u <= 0xDBFF && !final && i + 3 >= in.size()) break; // its pair may follow
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
    if (!final) return i;
    if (i < in.size()) push_clean(out, k_replacement, pending_cr);
    return in.size();
}

std::size_t decode_utf32_chunk(std::string_view in, bool big_endian, bool final, std::string& out, bool& pending_cr) {
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
    if (!final) return i;
    if (i < in.size()) push_clean(out, k_replacement, pending_cr);
    return in.size();
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

} // namespace

std::string clean_text(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    bool pending_cr = false;
    decode_utf8_chunk(in, true, out, pending_cr);
    if (pending_cr) out.push_back('\n');
    return out;
}

std::string decode_text(std::string_view in) {
    TextDecoder decoder;
    std::string out;
    out.reserve(in.size());
    decoder.feed(in, out);
    decoder.finish(out);
    return out;
}

// The byte-order mark decides the encoding; it needs the first four bytes (or the end).
std::size_t TextDecoder::detect(std::string_view in, bool final) {
    using namespace std::string_view_literals;
    if (in.size() < 4 && !final) return 0;
    m_detected = true;
    if (starts_with(in, "\x00\x00\xFE\xFF"sv)) return m_encoding = Encoding::utf32_be, 4;
    if (starts_with(in, "\xFF\xFE\x00\x00"sv)) return m_encoding = Encoding::utf32_le, 4;
    if (starts_with(in, "\xFE\xFF"sv)) return m_encoding = Encoding::utf16_be, 2;
    if (starts_with(in, "\xFF\xFE"sv)) return m_encoding = Encoding::utf16_le, 2;
    m_encoding = Encoding::utf8;
    return starts_with(in, "\xEF\xBB\xBF"sv) ? 3 : 0;
}

std::size_t TextDecoder::decode(std::string_view in, bool final, std::string& out) {
    std::size_t skipped = 0;
    if (!m_detected) {
        skipped = detect(in, final);
        if (!m_detected) return 0;
        in.remove_prefix(skipped);
    }
    switch (m_encoding) {
    case Encoding::utf8:
        return skipped + decode_utf8_chunk(in, final, out, m_pending_cr);
    case Encoding::utf16_be:
    case Encoding::utf16_le:
        return skipped + decode_utf16_chunk(in, m_encoding == Encoding::utf16_be, final, out, m_pending_cr);
    case Encoding::utf32_be:
    case Encoding::utf32_le:
        return skipped + decode_utf32_chunk(in, m_encoding == Encoding::utf32_be, final, out, m_pending_cr);
    }
    return skipped;
}

void TextDecoder::feed(std::string_view chunk, std::string& out) {
    // A unit cut by the previous chunk's end is completed with the first bytes of this one.
    while (!m_carry.empty() && !chunk.empty()) {
        const std::size_t old = m_carry.size();
        const std::size_t take = std::min<std::size_t>(chunk.size(), 8);
        m_carry.append(chunk.substr(0, take));
        const std::size_t used = decode(m_carry, false, out);
        if (used >= old) {
            chunk.remove_prefix(used - old);
            m_carry.clear();
        } else {
            m_carry.erase(0, used);
            chunk.remove_prefix(take);
        }
    }
    if (chunk.empty()) return;
    const std::size_t used = decode(chunk, false, out);
    m_carry.assign(chunk.substr(used));
}

void TextDecoder::finish(std::string& out) {
    decode(m_carry, true, out);
    m_carry.clear();
    if (m_pending_cr) out.push_back('\n');
    m_pending_cr = false;
}

std::size_t utf8_prefix_length(std::string_view s, std::size_t max_bytes) {
    if (s.size() <= max_bytes) return s.size();
    std::size_t n = max_bytes;
    // Step back over continuation bytes to the start of the character that would be cut.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    return n;
}

} // namespace extractors

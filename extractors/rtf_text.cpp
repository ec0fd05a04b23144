#include "extractors/rtf_text.hpp"

#include "extractors/text_clean.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <iconv.h>

namespace extractors {
namespace {

// Destinations whose text is not the document's: tables, metadata, pictures, objects,
// field instructions and the plain-text fallbacks of pictures.
constexpr std::array<std::string_view, 24> k_skipped = {
    "fonttbl",   "colortbl",           "stylesheet", "info",         "pict",      "object",
    "themedata", "colorschememapping", "datastore",  "latentstyles", "listtable", "listoverridetable",
    "rsidtbl",   "generator",          "xmlnsttbl",  "fldinst",      "filetbl",   "revtbl",
    "pgdsctbl",  "nonshppict",         "bkmkstart",  "bkmkend",      "private",   "mmathPr"};

struct Symbol {
    std::string_view word;
    std::string_view text;
};
constexpr std::array<Symbol, 13> k_symbols = {{{"par", "\n"},
                                               {"line", "\n"},
                                               {"sect", "\n"},
                                               {"page", "\n"},
                                               {"tab", "\t"},
                                               {"emdash", "\xE2\x80\x94"},
                                               {"endash", "\xE2\x80\x93"},
                                               {"bullet", "\xE2\x80\xA2"},
                                               {"lquote", "\xE2\x80\x98"},
                                               {"rquote", "\xE2\x80\x99"},
                                               {"ldblquote", "\xE2\x80\x9C"},
                                               {"rdblquote", "\xE2\x80\x9D"},
                                               {"emspace", " "}}};

struct Group {
    bool skip = false;
    int uc = 1; // characters that follow \uN as its fallback
};

std::string charset_of(int codepage) {
    if (codepage == 65001) return "UTF-8";
    if (codepage == 936) return "GBK";
    if (codepage == 10000) return "MACINTOSH";
    return "CP" + std::to_string(codepage);
}

class RtfReader {
public:
    RtfReader(std::string_view in, int max_depth) : m_in(in), m_max_depth(max_depth) {}

    std::string run() {
        m_groups.push_back({});
        while (m_pos < m_in.size()) step();
        flush_bytes();
        return std::move(m_out);
    }

private:
    void step() {
        const char c = m_in[m_pos++];
        if (c == '{') {
            if (static_cast<int>(m_groups.size()) < m_max_depth) m_groups.push_back(m_groups.back());
            m_starts_group = true;
            return;
        }
        if (c == '}') {
            flush_bytes();
            if (m_groups.size() > 1) m_groups.pop_back();
            m_starts_group = false;
            return;
        }
        const bool first = m_starts_group;
        m_starts_group = false;
        if (c == '\\') return control(first);
        if (c == '\r' || c == '\n') return;
        text_byte(static_cast<unsigned char>(c));
    }

    void text_byte(unsigned char c) {
        if (m_skip_chars > 0) {
            --m_skip_chars;
            return;
        }
        if (m_groups.back().skip) return;
        if (c < 0x80) {
            flush_bytes();
            m_out += static_cast<char>(c);
        } else {
            m_bytes += static_cast<char>(c);
        }
    }

    void control(bool first_in_group) {
        if (m_pos >= m_in.size()) return;
        const char c = m_in[m_pos];
        if (std::isalpha(static_cast<unsigned char>(c)) == 0) return control_symbol(first_in_group);
        const std::size_t start = m_pos;
        while (m_pos < m_in.size() && std::isalpha(static_cast<unsigned char>(m_in[m_pos])) != 0 &&
               m_pos - start < 32) {
            ++m_pos;
        }
        const std::string_view word = m_in.substr(start, m_pos - start);
        std::optional<long> param;
        const std::size_t num = m_pos;
        if (m_pos < m_in.size() && m_in[m_pos] == '-') ++m_pos;
        while (m_pos < m_in.size() && std::isdigit(static_cast<unsigned char>(m_in[m_pos])) != 0 && m_pos - num < 11) {
            ++m_pos;
        }
        if (m_pos > num) param = std::strtol(std::string(m_in.substr(num, m_pos - num)).c_str(), nullptr, 10);
        if (m_pos < m_in.size() && m_in[m_pos] == ' ') ++m_pos;
        word_with(word, param, first_in_group);
    }

    void control_symbol(bool first_in_group) {
        const char c = m_in[m_pos++];
        if (c == '*' && first_in_group) {
            m_groups.back().skip = true;
        } else if (c == '\'') {
            if (m_pos + 2 > m_in.size()) return;
            const unsigned char b =
                static_cast<unsigned char>(std::strtol(std::string(m_in.substr(m_pos, 2)).c_str(), nullptr, 16));
            m_pos += 2;
            if (m_skip_chars > 0) {
                --m_skip_chars;
            } else if (!m_groups.back().skip) {
                m_bytes += static_cast<char>(b);
            }
        } else if (c == '\\' || c == '{' || c == '}') {
            text_byte(static_cast<unsigned char>(c));
        } else if (c == '~') {
            emit("\xC2\xA0");
        } else if (c == '_') {
            emit("-");
        }
    }

    void word_with(std::string_view word, std::optional<long> param, bool first_in_group) {
        Group& g = m_groups.back();
        if (first_in_group && std::find(k_skipped.begin(), k_skipped.end(), word) != k_skipped.end()) g.skip = true;
        if (word == "bin" && param)
            m_pos = std::min(m_in.size(), m_pos + static_cast<std::size_t>(std::max(0L, *param)));
        if (word == "ansicpg" && param) m_charset = charset_of(static_cast<int>(*param));
        if (word == "mac") m_charset = "MACINTOSH";
        if (word == "uc" && param) g.uc = static_cast<int>(std::clamp(*param, 0L, 8L));
        if (word == "u" && param) return unicode(*param);
        if (word == "row") return end_row();
        if (word == "cell" && !g.skip) return end_cell();
        if (g.skip) return;
        for (const Symbol& s : k_symbols) {
            if (s.word == word) return emit(s.text);
        }
    }

    void unicode(long value) {
        unsigned cp = static_cast<unsigned>(value < 0 ? value + 65536 : value) & 0xFFFF;
        m_skip_chars = m_groups.back().uc;
        if (m_groups.back().skip) return;
        if (cp >= 0xD800 && cp < 0xDC00) {
            m_high_surrogate = cp;
            return;
        }
        if (cp >= 0xDC00 && cp < 0xE000 && m_high_surrogate != 0) {
            cp = 0x10000 + ((m_high_surrogate - 0xD800) << 10) + (cp - 0xDC00);
        }
        m_high_surrogate = 0;
        emit(utf8(cp));
    }

    static std::string utf8(unsigned cp) {
        std::string s;
        if (cp < 0x80) {
            s += static_cast<char>(cp);
        } else if (cp < 0x800) {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            s += static_cast<char>(0xE0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            s += static_cast<char>(0xF0 | (cp >> 18));
            s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
        }
        return s;
    }

    // A cell's paragraphs end with \par: the cell is one field, a tab after it.
    void end_cell() {
        flush_bytes();
        while (!m_out.empty() && (m_out.back() == '\n' || m_out.back() == ' ')) m_out.pop_back();
        m_out += '\t';
    }

    void end_row() {
        flush_bytes();
        while (!m_out.empty() && (m_out.back() == '\t' || m_out.back() == ' ' || m_out.back() == '\n')) {
            m_out.pop_back();
        }
        m_out += '\n';
    }

    void emit(std::string_view s) {
        flush_bytes();
        m_out += s;
    }

    // The code-page bytes of \'hh escapes (and raw 8-bit text) converted together, so that a
    // double-byte character split over two escapes stays whole.
    void flush_bytes() {
        if (m_bytes.empty()) return;
        m_out += convert(m_bytes, m_charset);
        m_bytes.clear();
    }

    static std::string convert(const std::string& bytes, const std::string& charset) {
        iconv_t cd = iconv_open("UTF-8//TRANSLIT", charset.c_str());
        if (cd == reinterpret_cast<iconv_t>(-1)) cd = iconv_open("UTF-8", "CP1252");
        if (cd == reinterpret_cast<iconv_t>(-1)) return bytes; // clean_text replaces what is not UTF-8
        std::string out(bytes.size() * 4 + 16, '\0');
        char* in = const_cast<char*>(bytes.data());
        std::size_t in_left = bytes.size();
        char* o = out.data();
        std::size_t out_left = out.size();
        while (in_left > 0) {
            if (iconv(cd, &in, &in_left, &o, &out_left) != static_cast<std::size_t>(-1)) break;
            if (errno != EILSEQ && errno != EINVAL) break;
            ++in; // a byte the code page does not map is dropped
            --in_left;
        }
        iconv_close(cd);
        out.resize(out.size() - out_left);
        return out;
    }

    std::string_view m_in;
    std::size_t m_pos = 0;
    int m_max_depth;
    std::vector<Group> m_groups;
    bool m_starts_group = false;
    int m_skip_chars = 0;
    unsigned m_high_surrogate = 0;
    std::string m_charset = "CP1252";
    std::string m_bytes;
    std::string m_out;
};

} // namespace

TextResult extract_rtf_text(std::span<const unsigned char> bytes, const TextOptions& options) {
    TextResult result;
    result.method = "document";
    const std::string_view in(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!in.starts_with("{\\rtf")) {
        result.error = StepError{core::ErrorCode::corrupt_file, "The file does not start like an RTF document."};
        return result;
    }
    result.text = clean_text(RtfReader(in, std::max(options.max_xml_depth, 16)).run());
    while (!result.text.empty() && (result.text.back() == '\n' || result.text.back() == ' ')) result.text.pop_back();
    return result;
}

} // namespace extractors

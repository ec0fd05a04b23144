#pragma once

// Helpers shared by the PDF and image text tests: text similarity measures, running a
// reference tool, and pages rendered with libvips so that OCR is tested without the corpus.

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include <vips/vips8>

#include <glib.h>

namespace texttest {

inline std::span<const unsigned char> as_bytes(const std::string& s) {
    return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

/// Words as ../shared/conformance/textsim.py sees them: lowercase runs of letters, digits, _.
inline std::map<std::string, int> word_bag(const std::string& text) {
    std::map<std::string, int> bag;
    std::string word;
    const char* p = text.data();
    const char* end = p + text.size();
    auto flush = [&] {
        if (!word.empty()) {
            ++bag[word];
            word.clear();
        }
    };
    while (p < end) {
        gunichar u = g_utf8_get_char_validated(p, end - p);
        if (u == static_cast<gunichar>(-1) || u == static_cast<gunichar>(-2)) {
            flush();
            ++p;
            continue;
        }
        if (g_unichar_isalnum(u) || u == '_' || g_unichar_ismark(u)) {
            char buf[8];
            const int n = g_unichar_to_utf8(g_unichar_tolower(u), buf);
            word.append(buf, static_cast<std::size_t>(n));
        } else {
            flush();
        }
        p = g_utf8_next_char(p);
    }
    flush();
    return bag;
}

/// Bag-of-words F1 between a reference and a candidate text, 0..1 (textsim.py's measure).
inline double word_f1(const std::string& reference, const std::string& candidate) {
    const auto a = word_bag(reference);
    const auto b = word_bag(candidate);
    long common = 0, na = 0, nb = 0;
    for (const auto& [w, n] : a) {
        na += n;
        if (auto it = b.find(w); it != b.end()) {
            common += std::min(n, it->second);
        }
    }
    for (const auto& [w, n] : b) {
        nb += n;
    }
    if (na == 0 && nb == 0) {
        return 1.0;
    }
    const double p = double(common) / double(std::max(1L, nb));
    const double r = double(common) / double(std::max(1L, na));
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

/// Code points of `text` with every whitespace run made one space, ends trimmed.
inline std::u32string normalised(const std::string& text) {
    std::u32string out;
    bool space = false;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        gunichar u = g_utf8_get_char_validated(p, end - p);
        if (u == static_cast<gunichar>(-1) || u == static_cast<gunichar>(-2)) {
            u = 0xFFFD;
            ++p;
        } else {
            p = g_utf8_next_char(p);
        }
        if (g_unichar_isspace(u)) {
            space = !out.empty();
            continue;
        }
        if (space) {
            out.push_back(U' ');
            space = false;
        }
        out.push_back(static_cast<char32_t>(u));
    }
    return out;
}

/// Character error rate: Levenshtein distance over normalised whitespace / reference length.
inline double cer(const std::string& reference, const std::string& candidate) {
    const std::u32string a = normalised(reference);
    const std::u32string b = normalised(candidate);
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1] ? 1 : 0)});
        }
        std::swap(prev, cur);
    }
    return double(prev[b.size()]) / double(std::max<std::size_t>(1, a.size()));
}

/// The first of `marks` not found in `text` after the one before it ("" when all are in order):
/// the pages of a document read by several threads come back in page order.
inline std::string first_out_of_order(const std::string& text, std::initializer_list<const char*> marks) {
    std::size_t at = 0;
    for (const char* mark : marks) {
        const std::size_t found = text.find(mark, at);
        if (found == std::string::npos) return mark;
        at = found;
    }
    return "";
}

struct CommandResult {
    int status = -1;
    std::string out;
};

/// Runs `command` through the shell; its stdout and exit status.
inline CommandResult run(const std::string& command) {
    CommandResult r;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return r;
    }
    std::array<char, 65536> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
        r.out.append(buf.data(), n);
    }
    const int status = ::pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

inline std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

inline void vips_start() {
    static const bool ok = VIPS_INIT("extractors_tests") == 0;
    (void)ok;
}

/// Black text on white rendered by libvips (Pango) at 300 dpi, with a margin: a clean page.
inline vips::VImage text_page(const std::string& markup, int width_px = 2000) {
    vips_start();
    vips::VImage ink = vips::VImage::text(
        markup.c_str(),
        vips::VImage::option()->set("font", "DejaVu Serif 12")->set("dpi", 300)->set("width", width_px));
    vips::VImage page = (255 - ink).cast(VIPS_FORMAT_UCHAR);
    return page.embed(120, 120, page.width() + 240, page.height() + 240,
                      vips::VImage::option()->set("extend", VIPS_EXTEND_WHITE));
}

inline std::string save_buffer(const vips::VImage& image, const char* suffix, vips::VOption* options = nullptr) {
    void* buf = nullptr;
    std::size_t size = 0;
    image.write_to_buffer(suffix, &buf, &size, options);
    std::string out(static_cast<const char*>(buf), size);
    g_free(buf);
    return out;
}

/// A name generator for INSTANTIATE_TEST_SUITE_P over file names: `prefix` and the file's
/// stem with every character that is not a letter or digit made `_` ("pdf_doc_1_3_pages").
inline auto param_name(const char* prefix) {
    return [prefix](const auto& info) {
        std::string n = std::string(prefix) + info.param;
        n = n.substr(0, n.find('.'));
        std::replace_if(
            n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
        return n;
    };
}

// Paragraphs with ordinary English words, each page different.
inline const std::vector<std::string>& sample_paragraphs() {
    static const std::vector<std::string> p = {
        "The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs. "
        "Seventeen ships sailed north in 1998 carrying grain and timber.",
        "Searchable records need clean text: every uploaded page is read once, and the words "
        "are stored beside the thumbnails. Invoice number 4521 was paid on Monday.",
        "A third page closes the document with a short summary of the meeting held in the "
        "library, where twelve members voted to repair the old clock tower.",
    };
    return p;
}

} // namespace texttest

#pragma once

// What the PDF text tests share: reading a file through the extractor, the Poppler command
// line tools as references, and PDFs written by the test itself (text pages and scans), so
// that the text layer and OCR are tested without the corpus.

#include "extractors/pdf_text.hpp"
#include "tests/extractors/text_metrics.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/pdf_builder.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace pdftest {

using extractors::extract_pdf_text;
using extractors::OcrMode;
using extractors::TextOptions;
using extractors::TextResult;
using texttest::as_bytes;

inline TextResult extract_file(const std::filesystem::path& path, const TextOptions& options = {}) {
    const std::string bytes = testsupport::read_file(path);
    return extract_pdf_text(as_bytes(bytes), options);
}

/// pdftotext's text of `path` (pages end with a form feed).
inline std::string pdftotext(const std::filesystem::path& path) {
    return texttest::run("pdftotext -q -enc UTF-8 " + texttest::quoted(path.string()) + " -").out;
}

/// True when pdftotext reads `path` without an error.
inline bool pdftotext_reads(const std::filesystem::path& path) {
    return texttest::run("timeout 60 pdftotext -q " + texttest::quoted(path.string()) + " - >/dev/null 2>&1").status ==
           0;
}

/// The page count pdfinfo gives, or -1.
inline int pdfinfo_pages(const std::filesystem::path& path) {
    const std::string info = texttest::run("pdfinfo " + texttest::quoted(path.string()) + " 2>/dev/null").out;
    std::smatch m;
    static const std::regex pages("Pages:\\s+(\\d+)");
    return std::regex_search(info, m, pages) ? std::stoi(m[1]) : -1;
}

/// `s` without the whitespace at its end (a page's text ends with its line breaks).
inline std::string trimmed(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
}

inline bool has_alnum(const std::string& s) {
    return !texttest::word_bag(s).empty();
}

inline std::size_t count(const std::string& s, char c) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
}

/// Empty when the shell finds `tool`, else why a test that needs it cannot run.
inline std::string missing_tool(const char* tool) {
    if (texttest::run(std::string("command -v ") + tool + " >/dev/null 2>&1").status == 0) return {};
    return std::string(tool) + " is not installed (scripts/install-deps.sh installs it)";
}

/// A Letter-sized PDF assembled page by page: text in Helvetica (/F1) and scans.
class PdfPages {
public:
    PdfPages() : m_tree(m_pdf.reserve()), m_font(m_pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")) {}

    /// Adds a page drawing the content stream `content` (empty: a page without any text),
    /// with the image XObjects `xobjects` ("/Im0 7 0 R") besides the font.
    void add_page(const std::string& content, const std::string& xobjects = "") {
        const int stream = m_pdf.add_stream("", content);
        m_pages.push_back(m_pdf.add("<< /Type /Page /Parent " + ref(m_tree) +
                                    " /MediaBox [0 0 612 792] /Resources << /Font << /F1 " + ref(m_font) +
                                    " >> /XObject << " + xobjects + " >> >> /Contents " + ref(stream) + " >>"));
    }

    /// Adds a page that is a scan: the 8-bit grey image `scan` drawn at 300 dpi from the
    /// page's top left, no text layer.
    void add_scan(const vips::VImage& scan) {
        const vips::VImage grey = scan.copy_memory();
        const std::string pixels(static_cast<const char*>(grey.data()),
                                 std::size_t(grey.width()) * std::size_t(grey.height()));
        const int image =
            m_pdf.add_stream("/Type /XObject /Subtype /Image /Width " + std::to_string(grey.width()) + " /Height " +
                                 std::to_string(grey.height()) + " /ColorSpace /DeviceGray /BitsPerComponent 8",
                             pixels);
        const double w = grey.width() * 72.0 / 300.0;
        const double h = grey.height() * 72.0 / 300.0;
        add_page("q " + std::to_string(w) + " 0 0 " + std::to_string(h) + " 0 " + std::to_string(792.0 - h) +
                     " cm /Im0 Do Q",
                 "/Im0 " + ref(image));
    }

    /// Adds a page without text that draws a `width` x `height` grey image of compressed zeros
    /// over the whole page (testsupport::zero_image).
    void add_zero_image_page(int width, int height) {
        const auto [entries, data] = testsupport::zero_image(width, height);
        add_page("q 612 0 0 792 0 0 cm /Im0 Do Q", "/Im0 " + ref(m_pdf.add_stream(entries, data)));
    }

    /// The whole file.
    std::string finish() {
        std::string kids;
        for (int page : m_pages) kids += ref(page) + " ";
        m_pdf.set(m_tree, "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(m_pages.size()) + " >>");
        return m_pdf.finish(m_pdf.add("<< /Type /Catalog /Pages " + ref(m_tree) + " >>"));
    }

private:
    static std::string ref(int object) { return std::to_string(object) + " 0 R"; }

    testsupport::PdfBuilder m_pdf;
    int m_tree;
    int m_font;
    std::vector<int> m_pages;
};

/// A one-page PDF of `content` (a content stream that may use /F1, Helvetica).
inline std::string one_page_pdf(const std::string& content) {
    PdfPages pdf;
    pdf.add_page(content);
    return pdf.finish();
}

/// A PDF of one scanned page per image, without a text layer.
inline std::string scanned_pdf(const std::vector<vips::VImage>& pages) {
    PdfPages pdf;
    for (const auto& page : pages) pdf.add_scan(page);
    return pdf.finish();
}

/// `pages` pages of Helvetica text, "Page N" and a line naming its number; the page numbers
/// in `blank` (1-based) have no text layer at all.
inline std::string numbered_text_pdf(int pages, const std::vector<int>& blank = {}) {
    PdfPages pdf;
    for (int p = 1; p <= pages; ++p) {
        const bool is_blank = std::find(blank.begin(), blank.end(), p) != blank.end();
        pdf.add_page(is_blank ? std::string()
                              : "BT /F1 18 Tf 72 700 Td (Page " + std::to_string(p) +
                                    " of the threaded test) Tj 0 -30 Td (line two says " +
                                    std::to_string(p * 7919 % 1000) + ") Tj ET");
    }
    return pdf.finish();
}

} // namespace pdftest

/// In a TEST body: needs the command-line tool `tool` (scripts/install-deps.sh installs it):
/// fails under CI=true when it is missing, skips with the reason elsewhere.
#define INGEST_REQUIRE_TOOL(tool)                                                                                      \
    if (const std::string missing = ::pdftest::missing_tool(tool); !missing.empty()) {                                 \
        if (::testsupport::in_ci()) FAIL() << missing << " (CI=true)";                                                 \
        GTEST_SKIP() << missing;                                                                                       \
    }

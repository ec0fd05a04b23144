#include "extractors/pdf_text.hpp"
#include "tests/extractors/text_metrics.hpp"
#include "tests/support/corpus.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <regex>
#include <span>
#include <vector>

#include <gtest/gtest.h>

using extractors::extract_pdf_text;
using extractors::OcrMode;
using extractors::TextOptions;
using extractors::TextResult;
using testsupport::TempDir;
using texttest::as_bytes;
using texttest::quoted;
using texttest::run;
using texttest::word_f1;

namespace {

TextResult extract_file(const std::filesystem::path& path, const TextOptions& options = {}) {
    const std::string bytes = testsupport::read_file(path);
    return extract_pdf_text(as_bytes(bytes), options);
}

std::string pdftotext(const std::filesystem::path& path) {
    return run("pdftotext -q -enc UTF-8 " + quoted(path.string()) + " -").out;
}

int pdfinfo_pages(const std::filesystem::path& path) {
    const std::string info = run("pdfinfo " + quoted(path.string()) + " 2>/dev/null").out;
    std::smatch m;
    static const std::regex pages("Pages:\\s+(\\d+)");
    return std::regex_search(info, m, pages) ? std::stoi(m[1]) : -1;
}

bool has_alnum(const std::string& s) {
    return !texttest::word_bag(s).empty();
}

// Pages of pdftotext's output without a letter or digit (pdftotext ends each page with \f).
int bare_pages(const std::string& reference) {
    int bare = 0;
    std::size_t start = 0;
    for (std::size_t ff = reference.find('\f'); ff != std::string::npos; ff = reference.find('\f', start)) {
        bare += has_alnum(reference.substr(start, ff - start)) ? 0 : 1;
        start = ff + 1;
    }
    return bare;
}

std::size_t count(const std::string& s, char c) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
}

bool need_tool(const char* tool) {
    return run(std::string("command -v ") + tool + " >/dev/null 2>&1").status == 0;
}

// A minimal one-page PDF: `content` is the page's content stream, `resources` its
// resource dictionary body, `extra` further objects from number 5 on.
std::string make_pdf(const std::string& content, const std::string& resources,
                     const std::vector<std::string>& extra = {}) {
    std::vector<std::string> objects = {
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << " + resources + " >> /Contents 4 0 R >>",
        "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
    };
    objects.insert(objects.end(), extra.begin(), extra.end());
    std::string pdf = "%PDF-1.4\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t off : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

// A PDF whose only page is a scan: a grey image XObject of `page`, no text layer.
std::string make_scanned_pdf(const vips::VImage& page) {
    const vips::VImage grey = page.copy_memory();
    const auto* data = static_cast<const char*>(grey.data());
    const std::string pixels(data, std::size_t(grey.width()) * std::size_t(grey.height()));
    const std::string image = "<< /Type /XObject /Subtype /Image /Width " + std::to_string(grey.width()) + " /Height " +
                              std::to_string(grey.height()) + " /ColorSpace /DeviceGray /BitsPerComponent 8 /Length " +
                              std::to_string(pixels.size()) + " >>\nstream\n" + pixels + "\nendstream";
    // Drawn at 300 dpi from the page's top left.
    const double w = grey.width() * 72.0 / 300.0;
    const double h = grey.height() * 72.0 / 300.0;
    const std::string content =
        "q " + std::to_string(w) + " 0 0 " + std::to_string(h) + " 0 " + std::to_string(792.0 - h) + " cm /Im0 Do Q";
    return make_pdf(content, "/XObject << /Im0 5 0 R >>", {image});
}

} // namespace

// ---------------------------------------------------------------------------------------
// Text layers against pdftotext

class PdfTextLayer : public ::testing::TestWithParam<const char*> {};

TEST_P(PdfTextLayer, MatchesPdftotext) {
    INGEST_CORPUS_FILE(path, std::string("pdf/text/") + GetParam());
    const std::string reference = pdftotext(path);
    ASSERT_FALSE(reference.empty()) << "pdftotext gave nothing";
    const TextResult r = extract_file(path);
    ASSERT_FALSE(r.error) << r.error->code << ": " << r.error->message;
    const double f1 = word_f1(reference, r.text);
    std::printf("[ figures  ] %s word F1 vs pdftotext = %.4f\n", GetParam(), f1);
    EXPECT_GE(f1, 0.99);
    EXPECT_EQ(r.page_count, pdfinfo_pages(path));
    EXPECT_FALSE(r.pages_read);
    // Pages joined with a form feed.
    EXPECT_EQ(count(r.text, '\f') + 1, static_cast<std::size_t>(*r.page_count));
    if (bare_pages(reference) == 0) {
        EXPECT_EQ(r.method, "text_layer");
        EXPECT_FALSE(r.ocr_pages);
    } else {
        EXPECT_TRUE(r.method == "text_layer" || r.method == "mixed") << r.method;
    }
}

INSTANTIATE_TEST_SUITE_P(Corpus, PdfTextLayer,
                         ::testing::Values("tracemonkey.pdf", "TAMReview.pdf", "german-umlaut-r.pdf",
                                           "french_diacritics.pdf", "doc_1_3_pages.pdf", "rotation.pdf",
                                           "freeculture.pdf"),
                         [](const auto& info) {
                             std::string n = std::string("pdf_") + info.param;
                             n = n.substr(0, n.find('.'));
                             std::replace_if(
                                 n.begin(), n.end(),
                                 [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
                             return n;
                         });

TEST(PdfText, TextOutsideTheCropBoxOfRotatedPagesMatchesPdftotext) {
    // freeculture's pages have crop boxes inside their media boxes; turned by /Rotate they
    // exercise the media-box slice in every orientation.
    INGEST_CORPUS_FILE(src, "pdf/text/freeculture.pdf");
    if (!need_tool("qpdf")) GTEST_SKIP() << "qpdf not installed";
    TempDir dir;
    const auto out = dir.path() / "rotated.pdf";
    ASSERT_EQ(run("qpdf --empty --pages " + quoted(src.string()) +
                  " 1-4 -- --rotate=+90:1 --rotate=+180:2 "
                  "--rotate=+270:3 " +
                  quoted(out.string()))
                  .status,
              0);
    const TextResult r = extract_file(out, TextOptions{.ocr_mode = OcrMode::off});
    ASSERT_FALSE(r.error);
    EXPECT_GE(word_f1(pdftotext(out), r.text), 0.99);
    EXPECT_EQ(r.page_count, 4);
}

TEST(PdfText, ReadsAtMostMaxPages) {
    INGEST_CORPUS_FILE(path, "pdf/text/tracemonkey.pdf");
    TextOptions options;
    options.max_pages = 3;
    const TextResult r = extract_file(path, options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.page_count, 14);
    EXPECT_EQ(r.pages_read, 3);
    EXPECT_EQ(count(r.text, '\f'), 2U);
    EXPECT_EQ(r.method, "text_layer");
}

TEST(PdfText, GeneratedTextPdfWithoutCorpus) {
    const std::string pdf =
        make_pdf("BT /F1 24 Tf 72 700 Td (Invoice 4521 paid in full) Tj ET", "/Font << /F1 5 0 R >>",
                 {"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"});
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, "text_layer");
    EXPECT_EQ(r.page_count, 1);
    EXPECT_NE(r.text.find("Invoice 4521 paid in full"), std::string::npos) << r.text;
}

// ---------------------------------------------------------------------------------------
// OCR of pages without a text layer

TEST(PdfText, GeneratedScanIsOcrdWithoutCorpus) {
    const vips::VImage page = texttest::text_page(texttest::sample_paragraphs()[0]);
    const std::string pdf = make_scanned_pdf(page);
    TextOptions off;
    off.ocr_mode = OcrMode::off;
    const TextResult plain = extract_pdf_text(as_bytes(pdf), off);
    ASSERT_FALSE(plain.error);
    EXPECT_EQ(plain.method, "text_layer");
    EXPECT_FALSE(plain.ocr_pages);
    EXPECT_FALSE(has_alnum(plain.text));

    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.ocr_pages, 1);
    ASSERT_TRUE(r.ocr_confidence);
    EXPECT_GT(*r.ocr_confidence, 80.0);
    const double cer = texttest::cer(texttest::sample_paragraphs()[0], r.text);
    std::printf("[ figures  ] generated scanned PDF page CER = %.4f\n", cer);
    EXPECT_LE(cer, 0.05) << r.text;
}

TEST(PdfText, ImageOnlyPdfIsOcr) {
    INGEST_CORPUS_FILE(path, "pdf/scanned/linn.pdf");
    INGEST_CORPUS_FILE(gt, "ocr/linn.gt.txt");
    const TextResult r = extract_file(path);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.page_count, 1);
    EXPECT_EQ(r.ocr_pages, 1);
    ASSERT_TRUE(r.ocr_confidence);
    EXPECT_GT(*r.ocr_confidence, 80.0);
    const double cer = texttest::cer(testsupport::read_file(gt), r.text);
    std::printf("[ figures  ] pdf/scanned/linn.pdf CER vs linn.gt.txt = %.4f\n", cer);
    EXPECT_LE(cer, 0.05);
}

TEST(PdfText, TextPageAndScannedPageAreMixed) {
    INGEST_CORPUS_FILE(text_pdf, "pdf/text/doc_1_3_pages.pdf");
    INGEST_CORPUS_FILE(scan_pdf, "pdf/scanned/c02-22.pdf");
    if (!need_tool("qpdf")) GTEST_SKIP() << "qpdf not installed";
    TempDir dir;
    const auto out = dir.path() / "mixed.pdf";
    ASSERT_EQ(run("qpdf --empty --pages " + quoted(text_pdf.string()) + " 1 " + quoted(scan_pdf.string()) + " 1 -- " +
                  quoted(out.string()))
                  .status,
              0);
    const TextResult r = extract_file(out);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.method, "mixed");
    EXPECT_EQ(r.page_count, 2);
    EXPECT_EQ(r.ocr_pages, 1);
    EXPECT_TRUE(r.ocr_confidence);
    const auto ff = r.text.find('\f');
    ASSERT_NE(ff, std::string::npos);
    EXPECT_TRUE(has_alnum(r.text.substr(0, ff)));
    EXPECT_GT(texttest::word_bag(r.text.substr(ff + 1)).size(), 50U) << "the scanned page was not read";
}

TEST(PdfText, ForceOcrsEveryPageAndOffNever) {
    INGEST_CORPUS_FILE(path, "pdf/text/doc_1_3_pages.pdf");
    TextOptions force;
    force.ocr_mode = OcrMode::force;
    const TextResult r = extract_file(path, force);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.ocr_pages, 3);
    EXPECT_GE(word_f1(pdftotext(path), r.text), 0.8) << r.text;

    force.max_ocr_pages = 1;
    const TextResult capped = extract_file(path, force);
    EXPECT_EQ(capped.ocr_pages, 1);
    EXPECT_EQ(capped.method, "mixed");

    TextOptions off;
    off.ocr_mode = OcrMode::off;
    const TextResult none = extract_file(path, off);
    EXPECT_EQ(none.method, "text_layer");
    EXPECT_FALSE(none.ocr_pages);
    EXPECT_FALSE(none.ocr_confidence);
}

TEST(PdfText, SidewaysScanIsTurnedUprightByOsd) {
    // A scan lying on its side inside the PDF (no /Rotate to fix it): the first OCR pass has
    // a low confidence, orientation detection turns it, the second pass is kept. (The
    // corpus's cardinal.pdf pages 3 and 4 are the same case on a dense 300-dpi page, where
    // it costs ~2.5 full OCR passes; too slow for this suite.)
    const vips::VImage sideways = texttest::text_page(texttest::sample_paragraphs()[2]).rot(VIPS_ANGLE_D90);
    const std::string pdf = make_scanned_pdf(sideways);
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.ocr_pages, 1);
    const double cer = texttest::cer(texttest::sample_paragraphs()[2], r.text);
    std::printf("[ figures  ] sideways generated scan CER = %.4f, confidence %.1f\n", cer,
                r.ocr_confidence.value_or(-1));
    EXPECT_LE(cer, 0.03) << r.text;
    EXPECT_GT(r.ocr_confidence.value_or(0), 80.0);
}

TEST(PdfText, MaxOcrPagesCapsOcr) {
    if (!need_tool("qpdf")) GTEST_SKIP() << "qpdf not installed";
    TempDir dir;
    const auto one = dir.path() / "one.pdf";
    const auto two = dir.path() / "two.pdf";
    testsupport::write_file(one, make_scanned_pdf(texttest::text_page(texttest::sample_paragraphs()[1])));
    ASSERT_EQ(run("qpdf --empty --pages " + quoted(one.string()) + " 1 " + quoted(one.string()) + " 1 -- " +
                  quoted(two.string()))
                  .status,
              0);
    TextOptions options;
    options.max_ocr_pages = 1;
    const TextResult r = extract_file(two, options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.ocr_pages, 1);
    EXPECT_EQ(r.page_count, 2);
    EXPECT_FALSE(r.pages_read); // the second page was read (it has no text layer), not OCR'd
    EXPECT_EQ(r.method, "ocr"); // the other page has no text of its own
    EXPECT_EQ(count(r.text, '\f'), 1U);
}

// ---------------------------------------------------------------------------------------
// Encrypted, corrupt, late

TEST(PdfText, EncryptedWithUserPasswordIsEncryptedPdf) {
    INGEST_CORPUS_FILE(src, "pdf/text/doc_1_3_pages.pdf");
    if (!need_tool("qpdf")) GTEST_SKIP() << "qpdf not installed";
    TempDir dir;
    const auto locked = dir.path() / "locked.pdf";
    const auto owner = dir.path() / "owner.pdf";
    ASSERT_EQ(run("qpdf --encrypt secret secret 256 -- " + quoted(src.string()) + " " + quoted(locked.string())).status,
              0);
    ASSERT_EQ(run("qpdf --encrypt '' owner 256 -- " + quoted(src.string()) + " " + quoted(owner.string())).status, 0);

    const TextResult l = extract_file(locked);
    ASSERT_TRUE(l.error);
    EXPECT_EQ(l.error->code, core::ErrorCode::encrypted_pdf);
    EXPECT_FALSE(l.error->message.empty());
    EXPECT_TRUE(l.text.empty());

    const TextResult o = extract_file(owner);
    ASSERT_FALSE(o.error) << o.error->message;
    EXPECT_EQ(o.method, "text_layer");
    EXPECT_GE(word_f1(pdftotext(src), o.text), 0.99);
}

TEST(PdfText, CorpusEncryptedFilesOpenOrSayEncrypted) {
    for (const char* name : {"empty_protected.pdf", "secHandler.pdf", "print_protection.pdf"}) {
        INGEST_CORPUS_FILE(path, std::string("pdf/encrypted/") + name);
        const bool reference_reads = run("pdftotext -q " + quoted(path.string()) + " - >/dev/null 2>&1").status == 0;
        const TextResult r = extract_file(path);
        if (!reference_reads) {
            ASSERT_TRUE(r.error) << name;
            EXPECT_TRUE(r.error->code == core::ErrorCode::encrypted_pdf ||
                        r.error->code == core::ErrorCode::corrupt_file)
                << name;
        } else {
            EXPECT_TRUE(!r.error || !core::is_file_level(r.error->code)) << name;
        }
    }
}

TEST(PdfText, CorruptFilesFailWhereThePdftotextCannotRead) {
    INGEST_CORPUS_FILE(any, "pdf/bad/invalid.pdf");
    int unreadable = 0;
    for (const auto& entry : std::filesystem::directory_iterator(any.parent_path())) {
        const auto& path = entry.path();
        const bool reference_reads =
            run("timeout 60 pdftotext -q " + quoted(path.string()) + " - >/dev/null 2>&1").status == 0;
        TextOptions options;
        options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        const TextResult r = extract_file(path, options);
        SCOPED_TRACE(path.filename().string());
        if (!reference_reads) {
            ++unreadable;
            ASSERT_TRUE(r.error) << "done where pdftotext fails";
            EXPECT_TRUE(r.error->code == core::ErrorCode::corrupt_file ||
                        r.error->code == core::ErrorCode::encrypted_pdf)
                << r.error->code;
            EXPECT_FALSE(r.error->message.empty());
        } else if (r.error) {
            EXPECT_FALSE(core::is_file_level(r.error->code));
        } else {
            EXPECT_FALSE(r.method.empty());
        }
    }
    EXPECT_GT(unreadable, 0);
}

TEST(PdfText, NotAPdfIsCorrupt) {
    for (const std::string& bytes : {std::string(), std::string("%PDF-1.7\n garbage"), std::string(4096, '\x01')}) {
        const TextResult r = extract_pdf_text(as_bytes(bytes), {});
        ASSERT_TRUE(r.error);
        EXPECT_EQ(r.error->code, core::ErrorCode::corrupt_file);
        EXPECT_TRUE(r.text.empty());
    }
}

TEST(PdfText, PastDeadlineIsTimeoutWithPageCount) {
    INGEST_CORPUS_FILE(path, "pdf/text/tracemonkey.pdf");
    TextOptions options;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const TextResult r = extract_file(path, options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::timeout);
    EXPECT_EQ(r.page_count, 14);
    EXPECT_EQ(r.pages_read, 0);
}

TEST(PdfText, TextIsCleanUtf8) {
    // TAMReview's fonts map glyphs to control characters; they become spaces, never bytes
    // below 0x20 other than \n, \t and \f.
    INGEST_CORPUS_FILE(path, "pdf/text/TAMReview.pdf");
    const TextResult r = extract_file(path, TextOptions{.ocr_mode = OcrMode::off});
    ASSERT_FALSE(r.error);
    EXPECT_TRUE(g_utf8_validate(r.text.data(), static_cast<gssize>(r.text.size()), nullptr));
    for (unsigned char c : r.text) {
        if (c < 0x20) {
            EXPECT_TRUE(c == '\n' || c == '\t' || c == '\f') << int(c);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Text layers read by several threads

namespace {

// `pages` pages of Helvetica text, "Page N" and a line naming its number; the page numbers
// in `blank` (1-based) have no text layer at all.
std::string make_text_pdf(int pages, const std::vector<int>& blank = {}) {
    std::vector<std::string> objects = {"<< /Type /Catalog /Pages 2 0 R >>", "",
                                        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"};
    std::string kids;
    for (int p = 1; p <= pages; ++p) {
        const int page_obj = int(objects.size()) + 1;
        kids += std::to_string(page_obj) + " 0 R ";
        std::string content;
        if (std::find(blank.begin(), blank.end(), p) == blank.end()) {
            content = "BT /F1 18 Tf 72 700 Td (Page " + std::to_string(p) +
                      " of the threaded test) Tj 0 -30 Td (line two says " + std::to_string(p * 7919 % 1000) +
                      ") Tj ET";
        }
        objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << "
                          "/Font << /F1 3 0 R >> >> /Contents " +
                          std::to_string(page_obj + 1) + " 0 R >>");
        objects.push_back("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream");
    }
    objects[1] = "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages) + " >>";
    std::string pdf = "%PDF-1.4\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t off : offsets) {
        char line[32];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

// Every field of the result, for comparing two runs.
void expect_same(const TextResult& a, const TextResult& b, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(a.error.has_value(), b.error.has_value());
    if (a.error && b.error) {
        EXPECT_EQ(a.error->code, b.error->code);
        EXPECT_EQ(a.error->message, b.error->message);
    }
    EXPECT_TRUE(a.text == b.text) << "texts differ: " << a.text.size() << " vs " << b.text.size() << " bytes";
    EXPECT_EQ(a.method, b.method);
    EXPECT_EQ(a.page_count, b.page_count);
    EXPECT_EQ(a.pages_read, b.pages_read);
    EXPECT_EQ(a.ocr_pages, b.ocr_pages);
    EXPECT_EQ(a.ocr_confidence, b.ocr_confidence);
}

void expect_threads_change_nothing(std::span<const unsigned char> pdf, TextOptions options,
                                   const std::vector<int>& max_pages_list) {
    for (int max_pages : max_pages_list) {
        options.max_pages = max_pages;
        options.pdf_threads = 1;
        const TextResult one = extract_pdf_text(pdf, options);
        for (int threads : {2, 3, 4, 64}) {
            options.pdf_threads = threads;
            expect_same(one, extract_pdf_text(pdf, options),
                        "max_pages " + std::to_string(max_pages) + ", " + std::to_string(threads) + " threads");
        }
    }
}

} // namespace

TEST(PdfText, ThreadedTextLayerIsByteIdenticalOnCorpus) {
    INGEST_CORPUS_FILE(path, "pdf/text/freeculture.pdf");
    const std::string bytes = testsupport::read_file(path);
    TextOptions options;
    options.ocr_mode = OcrMode::off;
    // All pages; max_pages inside a thread's run of pages; just enough and too few for threads.
    expect_threads_change_nothing(as_bytes(bytes), options, {2000, 352, 351, 203, 37, 17, 16, 15});
    options.pdf_threads = 2;
    options.max_pages = 37;
    const TextResult r = extract_pdf_text(as_bytes(bytes), options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.page_count, 352);
    EXPECT_EQ(r.pages_read, 37);
    EXPECT_EQ(count(r.text, '\f'), 36U);
}

TEST(PdfText, ThreadedTextLayerIsByteIdenticalWithoutCorpus) {
    const std::string pdf = make_text_pdf(43);
    TextOptions options;
    options.ocr_mode = OcrMode::off;
    expect_threads_change_nothing(as_bytes(pdf), options, {2000, 43, 42, 21, 17, 16, 9});
    options.pdf_threads = 4;
    options.max_pages = 21;
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.page_count, 43);
    EXPECT_EQ(r.pages_read, 21);
    EXPECT_EQ(count(r.text, '\f'), 20U);
    EXPECT_NE(r.text.find("Page 1 of the threaded test"), std::string::npos);
    EXPECT_NE(r.text.find("Page 21 of the threaded test"), std::string::npos);
    EXPECT_EQ(r.text.find("Page 22 of"), std::string::npos);
    // Pages in order.
    EXPECT_LT(r.text.find("Page 9 of"), r.text.find("Page 10 of"));
    EXPECT_LT(r.text.find("Page 16 of"), r.text.find("Page 17 of"));
}

TEST(PdfText, ThreadedTextLayerStillOcrsPagesWithoutText) {
    // Blank pages in automatic mode go to OCR on the calling thread, as without threads
    // (OCR of a blank page finds nothing: method stays text_layer).
    const std::string pdf = make_text_pdf(24, {3, 18});
    TextOptions options;
    expect_threads_change_nothing(as_bytes(pdf), options, {2000, 18, 17});
    options.pdf_threads = 2;
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.ocr_pages, 2);
    options.max_ocr_pages = 1;
    options.max_pages = 2000;
    expect_threads_change_nothing(as_bytes(pdf), options, {2000});
}

TEST(PdfText, ThreadedPastDeadlineIsTheSameTimeout) {
    const std::string pdf = make_text_pdf(40);
    TextOptions options;
    options.ocr_mode = OcrMode::off;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    expect_threads_change_nothing(as_bytes(pdf), options, {2000, 20});
    options.pdf_threads = 2;
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::timeout);
    EXPECT_EQ(r.page_count, 40);
    EXPECT_EQ(r.pages_read, 0);
    EXPECT_TRUE(r.text.empty());
}

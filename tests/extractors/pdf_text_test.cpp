// The PDF text layer: against pdftotext on the corpus, on PDFs written here, and read by
// several threads.
#include "extractors/sniff/content_type.hpp"
#include "tests/extractors/pdf_fixtures.hpp"

#include <cstdio>
#include <span>

using namespace pdftest;
using testsupport::TempDir;
using texttest::quoted;
using texttest::run;
using texttest::word_f1;

namespace {

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

} // namespace

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
                         texttest::param_name("pdf_"));

TEST(PdfText, TextOutsideTheCropBoxOfRotatedPagesMatchesPdftotext) {
    // freeculture's pages have crop boxes inside their media boxes; turned by /Rotate they
    // exercise the media-box slice in every orientation.
    INGEST_CORPUS_FILE(src, "pdf/text/freeculture.pdf");
    INGEST_REQUIRE_TOOL("qpdf");
    TempDir dir;
    const auto out = dir.path() / "rotated.pdf";
    ASSERT_EQ(run("qpdf --empty --pages " + quoted(src.string()) +
                  " 1-4 -- --rotate=+90:1 --rotate=+180:2 --rotate=+270:3 " + quoted(out.string()))
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
    const std::string pdf = one_page_pdf("BT /F1 24 Tf 72 700 Td (Invoice 4521 paid in full) Tj ET");
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, "text_layer");
    EXPECT_EQ(r.page_count, 1);
    EXPECT_FALSE(r.ocr_pages);
    EXPECT_NE(r.text.find("Invoice 4521 paid in full"), std::string::npos) << r.text;
}

// SPEC "Types": a `%PDF-` header anywhere in the first 1024 bytes is a PDF (an invoice with
// four stray bytes first); libmagic alone calls it application/octet-stream.
TEST(PdfText, HeaderAfterStrayBytesIsAPdfAndReadable) {
    const std::string pdf =
        std::string("\x00\x01\x02\x03", 4) + one_page_pdf("BT /F1 24 Tf 72 700 Td (Invoice 4521 paid in full) Tj ET");
    EXPECT_EQ(extractors::detect_content_type_buffer(pdf.data(), pdf.size()), "application/pdf");
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_NE(r.text.find("Invoice 4521 paid in full"), std::string::npos) << r.text;
    const std::string far = std::string(2000, '\x01') + pdf;
    EXPECT_NE(extractors::detect_content_type_buffer(far.data(), far.size()), "application/pdf");
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

// Text layer only: threads change nothing for each of `max_pages_list`; then the first
// `max_pages` of the `pages` pages read with `threads` threads, with their page figures.
TextResult expect_threaded_prefix(std::span<const unsigned char> pdf, const std::vector<int>& max_pages_list,
                                  int threads, int max_pages, int pages) {
    TextOptions options;
    options.ocr_mode = OcrMode::off;
    expect_threads_change_nothing(pdf, options, max_pages_list);
    options.pdf_threads = threads;
    options.max_pages = max_pages;
    TextResult r = extract_pdf_text(pdf, options);
    EXPECT_FALSE(r.error);
    EXPECT_EQ(r.page_count, pages);
    EXPECT_EQ(r.pages_read, max_pages);
    EXPECT_EQ(count(r.text, '\f'), static_cast<std::size_t>(max_pages - 1));
    return r;
}

} // namespace

TEST(PdfText, ThreadedTextLayerIsByteIdenticalOnCorpus) {
    INGEST_CORPUS_FILE(path, "pdf/text/freeculture.pdf");
    const std::string bytes = testsupport::read_file(path);
    // All pages; max_pages inside a thread's run of pages; just enough and too few for threads.
    expect_threaded_prefix(as_bytes(bytes), {2000, 352, 351, 203, 37, 17, 16, 15}, 2, 37, 352);
}

TEST(PdfText, ThreadedTextLayerIsByteIdenticalWithoutCorpus) {
    const std::string pdf = numbered_text_pdf(43);
    const TextResult r = expect_threaded_prefix(as_bytes(pdf), {2000, 43, 42, 21, 17, 16, 9}, 4, 21, 43);
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
    const std::string pdf = numbered_text_pdf(24, {3, 18});
    TextOptions options;
    expect_threads_change_nothing(as_bytes(pdf), options, {2000, 18, 17});
    options.pdf_threads = 2;
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.ocr_pages, 2);
    EXPECT_EQ(r.method, "text_layer");
    options.max_ocr_pages = 1;
    options.max_pages = 2000;
    expect_threads_change_nothing(as_bytes(pdf), options, {2000});
}

TEST(PdfText, ThreadedPastDeadlineIsTheSameTimeout) {
    const std::string pdf = numbered_text_pdf(40);
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

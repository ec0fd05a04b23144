// Thumbnails of the first page of PDFs: written here, from the corpus, damaged, late.
#include "tests/support/pdf_builder.hpp"
#include "tests/thumbnails/thumbnail_checks.hpp"

#include <chrono>
#include <optional>

using namespace thumbtest;

namespace {

// Thumbnails of a US Letter page (612 x 792 points) rendered from a PDF: paper at least
// `paper` bright on average, text as dark as `ink` somewhere.
void expect_letter_page(const Result& result, double paper, double ink) {
    expect_thumbnails(result, 612, 792, false);
    EXPECT_EQ(result.thumbnails[0].height, 288);
    EXPECT_FALSE(result.width);
    EXPECT_FALSE(result.height);
    const VImage page = load(result.thumbnails[0].webp);
    EXPECT_GT(page.avg(), paper);
    EXPECT_LT(page.min(), ink);
}

} // namespace

TEST_F(ThumbnailerTest, GeneratedLetterPdfFirstPageFitsEachBox) {
    const std::string pdf = testsupport::text_pdf({"First page: the one drawn", "Second page: never drawn"});
    expect_letter_page(thumbnails::render_pdf(as_bytes(pdf), m_options), 240, 160);
}

TEST_F(ThumbnailerTest, PdfFirstPageFitsEachBox) {
    INGEST_CORPUS_FILE(path, "pdf/text/tracemonkey.pdf");
    expect_letter_page(thumbnails::render_pdf(as_bytes(testsupport::read_file(path)), m_options), 200, 100);
}

// Each damaged or encrypted corpus PDF: the failure it gives, or nullopt for three thumbnails.
TEST_F(ThumbnailerTest, CorruptAndEncryptedPdfsFailAsValues) {
    INGEST_CORPUS_FILE(any, "pdf/bad/invalid.pdf");
    const auto corrupt = core::ErrorCode::corrupt_file;
    const std::pair<const char*, std::optional<core::ErrorCode>> rows[] = {
        {"bad/Brotli-Prototype-FileA.pdf", corrupt},
        {"bad/GHOSTSCRIPT-698804-1-fuzzed.pdf", std::nullopt},
        {"bad/Pages-tree-refs.pdf", std::nullopt},
        {"bad/REDHAT-1531897-0.pdf", corrupt},
        {"bad/bug1020226.pdf", corrupt},
        {"bad/helloworld-bad.pdf", std::nullopt},
        {"bad/invalid.pdf", corrupt},
        {"bad/pdfjsbad1586.pdf", std::nullopt},
        {"bad/poppler-395-0-fuzzed.pdf", corrupt},
        {"bad/poppler-67295-0.pdf", corrupt},
        {"bad/poppler-85140-0.pdf", corrupt},
        {"bad/poppler-937-0-fuzzed.pdf", corrupt}, // Poppler opens it but cannot draw its page
        {"bad/xref_command_missing.pdf", std::nullopt},
        {"encrypted/empty_protected.pdf", std::nullopt},
        {"encrypted/print_protection.pdf", core::ErrorCode::encrypted_pdf},
        {"encrypted/secHandler.pdf", std::nullopt},
    };
    for (const auto& [file, code] : rows) {
        SCOPED_TRACE(file);
        const auto path = any.parent_path().parent_path() / file;
        const Result result = thumbnails::render_pdf(as_bytes(testsupport::read_file(path)), m_options);
        const std::optional<core::ErrorCode> got = result.error ? std::optional(result.error->code) : std::nullopt;
        EXPECT_EQ(got, code) << (result.error ? result.error->message : "three thumbnails");
        EXPECT_EQ(result.thumbnails.size(), code ? 0U : 3U);
    }
}

TEST_F(ThumbnailerTest, GarbagePdfIsCorrupt) {
    for (const std::string& bytes : {std::string(), std::string("%PDF-1.4 nothing"), std::string(4096, '\x01')}) {
        const Result garbage = thumbnails::render_pdf(as_bytes(bytes), m_options);
        ASSERT_TRUE(garbage.error);
        EXPECT_EQ(garbage.error->code, core::ErrorCode::corrupt_file);
        EXPECT_NE(garbage.error->message.find(' '), std::string::npos) << "a sentence";
    }
}

TEST_F(ThumbnailerTest, PdfPastDeadlineIsATimeout) {
    thumbnails::Options options;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const Result pdf = thumbnails::render_pdf(as_bytes(thumbnails::tiny_pdf()), options);
    ASSERT_TRUE(pdf.error);
    EXPECT_EQ(pdf.error->code, core::ErrorCode::timeout);
}

TEST_F(ThumbnailerTest, PdfPageAbovePixelLimitIsTooManyPixels) {
    thumbnails::Options options;
    options.max_pixels = 100 * 50; // the tiny page renders 200 x 100
    const Result pdf = thumbnails::render_pdf(as_bytes(thumbnails::tiny_pdf()), options);
    ASSERT_TRUE(pdf.error);
    EXPECT_EQ(pdf.error->code, core::ErrorCode::too_many_pixels);
}

// A 1 MiB page drawing a 32768² image of compressed zeros: Poppler would decode the gigapixel
// (half a minute) whatever the thumbnail's size; the image is counted first and refused.
TEST_F(ThumbnailerTest, PdfPageDrawingAGigapixelImageFailsFast) {
    const std::string pdf = testsupport::zero_image_pdf(32768, 32768);
    const auto start = std::chrono::steady_clock::now();
    const Result result = thumbnails::render_pdf(as_bytes(pdf), m_options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(result.error);
    EXPECT_EQ(result.error->code, core::ErrorCode::too_many_pixels);
    EXPECT_EQ(result.error->message.rfind("The first page of the PDF was not rendered", 0), 0u)
        << result.error->message;
    EXPECT_LT(seconds, 5.0);
    // Within the budget the same kind of page renders (a black page).
    const Result small = thumbnails::render_pdf(as_bytes(testsupport::zero_image_pdf(2000, 2000)), m_options);
    ASSERT_FALSE(small.error) << small.error->message;
    ASSERT_EQ(small.thumbnails.size(), 3u);
    EXPECT_LT(load(small.thumbnails[0].webp).max(), 10);
}

// The helper's warm-up runs on a PDF built in memory: it must be a real one-page PDF that
// renders, or the warm-up silently warms nothing.
TEST(ThumbnailerWarmUp, TinyPdfRendersAndWarmUpRuns) {
    thumbnails::init();
    const thumbnails::Result r = thumbnails::render_pdf(as_bytes(thumbnails::tiny_pdf()), thumbnails::Options{});
    ASSERT_FALSE(r.error) << r.error->message;
    ASSERT_EQ(r.thumbnails.size(), 3u);
    EXPECT_EQ(r.thumbnails.front().width, 200); // the 200x100 pt page, never upscaled
    EXPECT_EQ(r.thumbnails.front().height, 100);
    EXPECT_LT(load(r.thumbnails.front().webp).min(), 100) << "the line of text is drawn";
    thumbnails::warm_up(); // never throws
    EXPECT_EQ(std::string(vips_error_buffer()), "");
}

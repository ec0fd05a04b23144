// OCR of PDF pages without a text layer: scans written here and from the corpus.
#include "tests/extractors/pdf_fixtures.hpp"

#include <cstdio>

using namespace pdftest;
using texttest::sample_paragraphs;
using texttest::text_page;

TEST(PdfText, GeneratedScanIsOcrdWithoutCorpus) {
    const std::string pdf = scanned_pdf({text_page(sample_paragraphs()[0])});
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
    const double cer = texttest::cer(sample_paragraphs()[0], r.text);
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
    PdfPages pages;
    pages.add_page("BT /F1 18 Tf 72 700 Td (A page with its own text layer) Tj ET");
    pages.add_scan(text_page(sample_paragraphs()[1]));
    const std::string pdf = pages.finish();
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, "mixed");
    EXPECT_EQ(r.page_count, 2);
    EXPECT_EQ(r.ocr_pages, 1);
    EXPECT_TRUE(r.ocr_confidence);
    const auto ff = r.text.find('\f');
    ASSERT_NE(ff, std::string::npos);
    EXPECT_EQ(trimmed(r.text.substr(0, ff)), "A page with its own text layer");
    EXPECT_LE(texttest::cer(sample_paragraphs()[1], r.text.substr(ff + 1)), 0.05) << "the scanned page was not read";
}

TEST(PdfText, ForceOcrsEveryPageAndOffNever) {
    INGEST_CORPUS_FILE(path, "pdf/text/doc_1_3_pages.pdf");
    TextOptions force;
    force.ocr_mode = OcrMode::force;
    const TextResult r = extract_file(path, force);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.ocr_pages, 3);
    EXPECT_GE(texttest::word_f1(pdftotext(path), r.text), 0.8) << r.text;

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
    const vips::VImage sideways = text_page(sample_paragraphs()[2]).rot(VIPS_ANGLE_D90);
    const std::string pdf = scanned_pdf({sideways});
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.ocr_pages, 1);
    const double cer = texttest::cer(sample_paragraphs()[2], r.text);
    std::printf("[ figures  ] sideways generated scan CER = %.4f, confidence %.1f\n", cer,
                r.ocr_confidence.value_or(-1));
    EXPECT_LE(cer, 0.03) << r.text;
    EXPECT_GT(r.ocr_confidence.value_or(0), 80.0);
}

TEST(PdfText, MaxOcrPagesCapsOcr) {
    const vips::VImage page = text_page(sample_paragraphs()[1]);
    const std::string pdf = scanned_pdf({page, page});
    TextOptions options;
    options.max_ocr_pages = 1;
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_FALSE(r.error);
    EXPECT_EQ(r.ocr_pages, 1);
    EXPECT_EQ(r.page_count, 2);
    EXPECT_FALSE(r.pages_read); // the second page was read (it has no text layer), not OCR'd
    EXPECT_EQ(r.method, "ocr"); // the other page has no text of its own
    EXPECT_EQ(count(r.text, '\f'), 1U);
}

// A scan of several pages, with a text page among them, OCR'd by two and by four threads
// gives the same text, in page order, as by one (issue 20: a long scan uses every free core).
TEST(PdfText, PagesOcrdByThreadsGiveTheSameTextInPageOrder) {
    PdfPages pages;
    const auto& p = sample_paragraphs();
    pages.add_scan(text_page("Page one. " + p[0]));
    pages.add_page("BT /F1 18 Tf 72 700 Td (Page two has its own text layer) Tj ET");
    pages.add_scan(text_page("Page three. " + p[1]));
    pages.add_scan(text_page("Page four. " + p[2]));
    pages.add_scan(text_page("Page five. " + p[0]));
    const std::string pdf = pages.finish();
    const TextResult one = extract_pdf_text(as_bytes(pdf), {});
    ASSERT_FALSE(one.error) << one.error->message;
    EXPECT_EQ(one.ocr_pages, 4);
    EXPECT_EQ(one.method, "mixed");
    for (int threads : {2, 4}) {
        TextOptions options;
        options.ocr_threads = threads;
        const TextResult r = extract_pdf_text(as_bytes(pdf), options);
        ASSERT_FALSE(r.error) << r.error->message;
        EXPECT_EQ(r.text, one.text) << threads << " threads";
        EXPECT_EQ(r.ocr_pages, one.ocr_pages);
        EXPECT_EQ(r.method, one.method);
        EXPECT_DOUBLE_EQ(r.ocr_confidence.value_or(-1), one.ocr_confidence.value_or(-2));
    }
    EXPECT_EQ(texttest::first_out_of_order(one.text, {"Page one", "Page two", "Page three", "Page four", "Page five"}),
              "")
        << one.text;
}

// With threads, the deadline still ends the reading at the first page it cut short: what
// came before is kept, nothing after it, and the step is `timeout`.
TEST(PdfText, ThreadedOcrPastTheDeadlineEndsInTimeout) {
    const vips::VImage page = text_page(sample_paragraphs()[1]);
    const std::string pdf = scanned_pdf({page, page, page});
    TextOptions options;
    options.ocr_threads = 2;
    options.deadline = std::chrono::steady_clock::now();
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::timeout);
    EXPECT_LT(r.pages_read.value_or(3), 3);
}

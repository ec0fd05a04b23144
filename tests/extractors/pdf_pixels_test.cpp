// The pixel budget of PDF pages: images counted without decoding them, and a page above
// INGEST_MAX_PIXELS refused for OCR while the rest of the document is read.
#include "extractors/pdf_pixels.hpp"
#include "tests/extractors/pdf_fixtures.hpp"

#include <chrono>

using namespace pdftest;
using texttest::sample_paragraphs;
using texttest::text_page;

namespace {

using Clock = std::chrono::steady_clock;

constexpr int k_bomb_side = 32768; // 1.07 gigapixels of compressed zeros: a 1 MiB stream

// Adds the image `image` (from testsupport::zero_image) to `pdf`; returns "/Name N 0 R".
std::string add_image(testsupport::PdfBuilder& pdf, const std::string& name,
                      const std::pair<std::string, std::string>& image) {
    return "/" + name + " " + std::to_string(pdf.add_stream(image.first, image.second)) + " 0 R";
}

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

TEST(PdfPixels, ImagesMasksAndRepeatsAreCountedWithoutDecoding) {
    testsupport::PdfBuilder pdf;
    const int tree = pdf.reserve();
    const int mask = pdf.add_stream(testsupport::zero_image(400, 400).first, testsupport::zero_image(400, 400).second);
    const std::string photo = add_image(pdf, "Photo", testsupport::zero_image(300, 200));
    const std::string masked =
        add_image(pdf, "Masked", testsupport::zero_image(100, 100, "/SMask " + std::to_string(mask) + " 0 R"));
    const std::string bomb = add_image(pdf, "Bomb", testsupport::zero_image(k_bomb_side, k_bomb_side));
    auto page = [&](const std::string& content, const std::string& xobjects) {
        const int stream = pdf.add_stream("", content);
        return pdf.add("<< /Type /Page /Parent " + std::to_string(tree) +
                       " 0 R /MediaBox [0 0 612 792] "
                       "/Resources << /XObject << " +
                       xobjects + " >> >> /Contents " + std::to_string(stream) + " 0 R >>");
    };
    const int p1 = page("q 100 0 0 100 0 0 cm /Photo Do Q q 50 0 0 50 200 200 cm /Photo Do /Masked Do Q",
                        photo + " " + masked + " " + bomb); // the bomb is a resource, never drawn
    const int p2 = page("0 0 1 rg 10 10 100 100 re f", "");
    const int p3 = page("q 612 0 0 792 0 0 cm /Bomb Do Q", bomb);
    pdf.set(tree, "<< /Type /Pages /Kids [" + std::to_string(p1) + " 0 R " + std::to_string(p2) + " 0 R " +
                      std::to_string(p3) + " 0 R] /Count 3 >>");
    const std::string bytes = pdf.finish(pdf.add("<< /Type /Catalog /Pages " + std::to_string(tree) + " 0 R >>"));

    extractors::PdfPixelBudget budget(as_bytes(bytes));
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    const auto start = Clock::now();
    EXPECT_EQ(budget.page_pixels(0, 1'000'000'000'000, deadline), 2u * 300 * 200 + 100 * 100 + 400 * 400);
    EXPECT_EQ(budget.page_pixels(1, 1'000'000'000'000, deadline), 0u);
    EXPECT_EQ(budget.page_pixels(2, 1'000'000'000'000, deadline), std::uint64_t(k_bomb_side) * k_bomb_side);
    EXPECT_EQ(budget.page_pixels(3, 1'000'000'000'000, deadline), 0u) << "no such page";
    EXPECT_LT(seconds_since(start), 1.0) << "no image was decoded";
    EXPECT_FALSE(budget.check_page(0, 100'000'000, deadline, "Page 1"));
    const auto refused = budget.check_page(2, 100'000'000, deadline, "Page 3 of 3");
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->code, core::ErrorCode::too_many_pixels);
    EXPECT_EQ(refused->message, "Page 3 of 3 was not rendered: its images add up to at least 1074 megapixels, above "
                                "the limit of 100 (INGEST_MAX_PIXELS).");
}

TEST(PdfPixels, InlineImagesAreCountedAndSkipped) {
    const std::string data = testsupport::flate_zeros(4000u * 3000u);
    const std::string pdf = one_page_pdf("q 100 0 0 100 0 0 cm BI /W 4000 /H 3000 /CS /G /BPC 8 /F /Fl ID " + data +
                                         " EI Q BT /F1 18 Tf 72 700 Td (After the image) Tj ET");
    extractors::PdfPixelBudget budget(as_bytes(pdf));
    EXPECT_EQ(budget.page_pixels(0, 1'000'000'000, Clock::now() + std::chrono::seconds(30)), 12'000'000u);
}

TEST(PdfPixels, DamagedOrEmptyBytesCountNothing) {
    for (const std::string& bytes : {std::string(), std::string("%PDF-1.4 nothing"), std::string(4096, '\x01')}) {
        extractors::PdfPixelBudget budget(as_bytes(bytes));
        EXPECT_EQ(budget.page_pixels(0, 100, Clock::now() + std::chrono::seconds(5)), 0u);
    }
}

// The issue's file: a page that draws a 32768² image of compressed zeros between a text page
// and a scan. Before the budget, OCR rendered it for half a minute; now that page alone ends
// too_many_pixels and the others are still read, text layer and OCR.
TEST(PdfText, PageOverThePixelBudgetIsRefusedAndTheRestIsRead) {
    PdfPages pages;
    pages.add_page("BT /F1 18 Tf 72 700 Td (A page with its own text layer) Tj ET");
    pages.add_zero_image_page(k_bomb_side, k_bomb_side);
    pages.add_scan(text_page(sample_paragraphs()[1]));
    const std::string pdf = pages.finish();
    const auto start = Clock::now();
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    const double seconds = seconds_since(start);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::too_many_pixels);
    EXPECT_EQ(r.error->message.rfind("Page 2 of 3 was not rendered", 0), 0u) << r.error->message;
    EXPECT_EQ(r.page_count, 3);
    EXPECT_FALSE(r.pages_read) << "every page was read";
    EXPECT_EQ(r.ocr_pages, 1) << "the scan, not the refused page";
    const auto first = r.text.find('\f'), second = r.text.find('\f', first + 1);
    ASSERT_NE(second, std::string::npos) << r.text;
    EXPECT_EQ(trimmed(r.text.substr(0, first)), "A page with its own text layer");
    EXPECT_EQ(trimmed(r.text.substr(first + 1, second - first - 1)), "");
    EXPECT_LE(texttest::cer(sample_paragraphs()[1], r.text.substr(second + 1)), 0.05) << "the scan was not OCR'd";
    std::printf("[ figures  ] text of a 3-page PDF with a 32768^2 zero image on page 2: %.2f s\n", seconds);
}

TEST(PdfText, PixelBombPageEndsTooManyPixelsInUnderFiveSeconds) {
    PdfPages pages;
    pages.add_zero_image_page(k_bomb_side, k_bomb_side);
    const std::string pdf = pages.finish();
    EXPECT_LT(pdf.size(), 2u << 20);
    const auto start = Clock::now();
    const TextResult r = extract_pdf_text(as_bytes(pdf), {});
    const double seconds = seconds_since(start);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::too_many_pixels) << r.error->message;
    EXPECT_FALSE(r.ocr_pages);
    EXPECT_LT(seconds, 5.0);
    std::printf("[ figures  ] text of a %zu-byte PDF drawing a 32768^2 zero image: %.2f s\n", pdf.size(), seconds);
}

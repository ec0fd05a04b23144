// OCR of pages that are not level: a sheet scanned at an angle is levelled before Tesseract's
// layout analysis (which reads a page turned 4-10 degrees as empty), and a page without text
// never reports a confidence.
#include "extractors/deskew.hpp"
#include "extractors/image_text.hpp"
#include "tests/extractors/text_metrics.hpp"
#include "tests/support/corpus.hpp"

#include <cstdio>

#include <gtest/gtest.h>

using extractors::extract_image_text;
using extractors::TextResult;
using texttest::as_bytes;
using texttest::word_f1;

namespace {

// A full page of ordinary prose: every sample paragraph, twice, as a typed letter would be.
const std::string& page_text() {
    static const std::string text = [] {
        std::string t;
        for (int round = 0; round < 2; ++round) {
            for (const auto& p : texttest::sample_paragraphs()) t += p + "\n\n";
        }
        return t;
    }();
    return text;
}

const vips::VImage& level_page() {
    static const vips::VImage page = texttest::text_page(page_text()).copy_memory();
    return page;
}

// The page turned `degrees` clockwise, the corners brought in white, as a scan on the skew.
vips::VImage turned(const vips::VImage& page, double degrees) {
    return page.rotate(degrees, vips::VImage::option()->set("background", std::vector<double>{255.0}))
        .cast(VIPS_FORMAT_UCHAR)
        .copy_memory();
}

} // namespace

class SkewedPage : public ::testing::TestWithParam<double> {};

TEST_P(SkewedPage, IsLevelledAndRead) {
    const double degrees = GetParam();
    const std::string png = texttest::save_buffer(turned(level_page(), degrees), ".png");
    const TextResult r = extract_image_text(as_bytes(png), "image/png", {});
    ASSERT_FALSE(r.error) << r.error->message;
    const double f1 = word_f1(page_text(), r.text);
    std::printf("[ figures  ] page turned %.0f degrees: word F1 = %.3f, confidence = %.1f\n", degrees, f1,
                r.ocr_confidence.value_or(-1));
    EXPECT_GE(f1, 0.95) << r.text;
    EXPECT_GT(r.ocr_confidence.value_or(0), 80.0);
}

INSTANTIATE_TEST_SUITE_P(Degrees, SkewedPage, ::testing::Values(10.0, -10.0, 6.0, 4.0), [](const auto& info) {
    const int d = static_cast<int>(info.param);
    return std::string(d < 0 ? "minus_" : "plus_") + std::to_string(d < 0 ? -d : d);
});

TEST(Deskew, FindsTheTurnAndLeavesLevelPagesAlone) {
    const vips::VImage level = level_page();
    const auto view = [](const vips::VImage& image) {
        return extractors::GreyImage{static_cast<const unsigned char*>(image.data()),
                                     image.width(),
                                     image.height(),
                                     static_cast<int>(VIPS_IMAGE_SIZEOF_LINE(image.get_image())),
                                     300,
                                     image.bands()};
    };
    EXPECT_FALSE(extractors::deskewed(view(level)));
    const vips::VImage skewed = turned(level, 10.0);
    const auto straight = extractors::deskewed(view(skewed));
    ASSERT_TRUE(straight);
    // Leptonica measures the turn to undo: 10 degrees back, within its search's precision.
    EXPECT_NEAR(std::abs(straight->degrees), 10.0, 0.3) << straight->degrees;
    // Nothing of the turned page is cut off, and an RGB page stays RGB.
    EXPECT_GE(straight->view.width, skewed.width());
    const vips::VImage colour = skewed.bandjoin(skewed).bandjoin(skewed).copy(
        vips::VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
    const vips::VImage colour_memory = colour.copy_memory();
    const auto straight_colour = extractors::deskewed(view(colour_memory));
    ASSERT_TRUE(straight_colour) << colour_memory.bands() << " " << colour_memory.format() << " "
                                 << VIPS_IMAGE_SIZEOF_LINE(colour_memory.get_image());
    EXPECT_EQ(straight_colour->view.channels, 3);
    // A smooth photo-like field has no lines to level.
    const vips::VImage field = (vips::VImage::xyz(900, 700).extract_band(0) * 0.2 + 100).cast(VIPS_FORMAT_UCHAR);
    EXPECT_FALSE(extractors::deskewed(view(field.copy_memory())));
}

// Whatever Tesseract makes of a page without legible text (specks, rules, a photo), an
// empty text never comes with a confidence above 0.
TEST(ImageText, EmptyTextHasNoConfidence) {
    const auto blank = [] { return (vips::VImage::black(1200, 1600) + 255).cast(VIPS_FORMAT_UCHAR).copy_memory(); };
    std::vector<vips::VImage> pages;
    vips::VImage rule = blank(); // drawn in place
    rule.draw_rect({0.0}, 100, 800, 1000, 6, vips::VImage::option()->set("fill", true));
    pages.push_back(rule);
    vips::VImage specks = blank();
    for (int i = 0; i < 40; ++i) {
        specks.draw_rect({0.0}, 37 * i % 1100 + 20, 53 * i % 1500 + 20, 5, 5,
                         vips::VImage::option()->set("fill", true));
    }
    pages.push_back(specks);
    pages.push_back((vips::VImage::xyz(1200, 900).extract_band(0) * 0.05 + 120));
    for (std::size_t i = 0; i < pages.size(); ++i) {
        const std::string png = texttest::save_buffer(pages[i].cast(VIPS_FORMAT_UCHAR), ".png");
        const TextResult r = extract_image_text(as_bytes(png), "image/png", {});
        ASSERT_FALSE(r.error) << i;
        if (r.text.find_first_not_of(" \n\f") == std::string::npos) {
            EXPECT_EQ(r.ocr_confidence.value_or(-1), 0.0) << "page " << i;
        }
    }
}

// The corpus's typewritten page, turned 10 degrees as the upload of the report was: the
// tesseract CLI reads nothing of it (its layout analysis finds no block); it is levelled here.
TEST(ImageText, CorpusTypewriterPageTurnedTenDegrees) {
    INGEST_CORPUS_FILE(path, "ocr/typewriter.png");
    texttest::vips_start();
    const vips::VImage page = vips::VImage::new_from_file(path.c_str());
    const vips::VImage skewed =
        page.rotate(10.0, vips::VImage::option()->set("background", std::vector<double>{255.0, 255.0, 255.0}))
            .cast(VIPS_FORMAT_UCHAR);
    const std::string upright = texttest::save_buffer(page, ".png");
    const std::string png = texttest::save_buffer(skewed, ".png");
    const TextResult level = extract_image_text(as_bytes(upright), "image/png", {});
    const TextResult r = extract_image_text(as_bytes(png), "image/png", {});
    ASSERT_FALSE(r.error);
    const double f1 = word_f1(level.text, r.text);
    std::printf("[ figures  ] typewriter.png turned 10 degrees: word F1 against the level page = %.3f\n", f1);
    EXPECT_GE(f1, 0.8) << r.text;
    EXPECT_GT(r.ocr_confidence.value_or(0), 60.0);
}

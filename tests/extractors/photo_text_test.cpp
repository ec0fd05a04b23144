// Photos before OCR (issue 20): a colour image of photo size is first looked at reduced, and
// read at full resolution only when that look shows signs of text; what is read of a photo
// is capped in resolution. Photos without text end with empty text and no OCR'd page; the
// text of photographed pages and signs is kept.
#include "extractors/image_text.hpp"
#include "extractors/photo_check.hpp"
#include "tests/extractors/text_metrics.hpp"

#include <cstdio>

#include <gtest/gtest.h>

using extractors::extract_image_text;
using extractors::TextResult;
using texttest::as_bytes;

namespace {

// Seeded: the same scene on every run (an unlucky draw once cost a photographed page a tenth
// of its words).
vips::VImage noise(int width, int height, double sigma, int seed) {
    return vips::VImage::gaussnoise(
        width, height,
        vips::VImage::option()->set("sigma", sigma)->set("mean", sigma > 40 ? 128.0 : 0.0)->set("seed", seed));
}

// A textured colour scene, as a camera's photo of foliage or gravel is to OCR: blotches in
// three colours a few pixels wide, with fine grain over them.
vips::VImage scene(int width, int height) {
    const int w = width / 4 + 1, h = height / 4 + 1;
    vips::VImage blotches =
        vips::VImage::bandjoin({noise(w, h, 60, 1), noise(w, h, 60, 2) * 0.8, noise(w, h, 60, 3) * 0.6});
    blotches = blotches.gaussblur(1.2).resize(4.0).extract_area(0, 0, width, height);
    const vips::VImage grain = noise(width, height, 25, 4);
    return (blotches + vips::VImage::bandjoin({grain, grain, grain})).cast(VIPS_FORMAT_UCHAR);
}

// A colour JPEG of `image`'s three bands (tagged sRGB: noise is made untagged, and saved so it
// would lose two of them), progressive when `progressive` (as phones' and web exports often
// are: shrink-on-load saves less of their decode).
std::string jpeg(const vips::VImage& image, bool progressive = false) {
    VipsImage* tagged = nullptr;
    if (vips_copy(image.get_image(), &tagged, "interpretation", VIPS_INTERPRETATION_sRGB, nullptr) != 0) {
        throw vips::VError();
    }
    return texttest::save_buffer(vips::VImage(tagged), ".jpg",
                                 vips::VImage::option()->set("Q", 90)->set("interlace", progressive));
}

// `ink` (grey, dark on white) laid into `photo` at (x, y), the paper a little warm.
vips::VImage with_paper(const vips::VImage& photo, const vips::VImage& ink, int x, int y) {
    const vips::VImage paper = vips::VImage::bandjoin({ink, ink * 0.97, ink * 0.9}).cast(VIPS_FORMAT_UCHAR);
    return photo.insert(paper, x, y);
}

// The sample paragraphs as one page's text.
std::string sample_text() {
    std::string text;
    for (const auto& p : texttest::sample_paragraphs()) text += p + "\n\n";
    return text;
}

// Every case as a baseline and as a progressive JPEG.
class PhotoText : public ::testing::TestWithParam<bool> {
protected:
    static void SetUpTestSuite() { texttest::vips_start(); }
    std::string jpeg(const vips::VImage& image) const { return ::jpeg(image, GetParam()); }
};

} // namespace

INSTANTIATE_TEST_SUITE_P(Jpeg, PhotoText, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "progressive" : "baseline"; });

TEST_P(PhotoText, APhotoWithoutTextIsNotReadAtFullResolution) {
    const std::string photo = jpeg(scene(5040, 3780)); // 19 MP
    const TextResult r = extract_image_text(as_bytes(photo), "image/jpeg", {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.text.find_first_not_of(" \n\f"), std::string::npos) << r.text;
    EXPECT_EQ(r.method, "ocr");
    EXPECT_EQ(r.ocr_pages.value_or(-1), 0); // looked at reduced, no page read in full
    EXPECT_EQ(r.ocr_confidence.value_or(-1), 0.0);
}

TEST_P(PhotoText, APhotographedPageKeepsItsText) {
    const std::string text = sample_text();
    const vips::VImage page = texttest::text_page(text);
    const std::string photo = jpeg(with_paper(scene(4032, 3024), page, 600, 400)); // 12 MP
    const TextResult r = extract_image_text(as_bytes(photo), "image/jpeg", {});
    ASSERT_FALSE(r.error) << r.error->message;
    const double f1 = texttest::word_f1(text, r.text);
    std::printf("[ figures  ] photographed page: word F1 = %.3f, confidence = %.1f\n", f1,
                r.ocr_confidence.value_or(-1));
    EXPECT_GE(f1, 0.9) << r.text;
    EXPECT_EQ(r.ocr_pages.value_or(-1), 1);
}

TEST_P(PhotoText, ASignInALargePhotoIsReadFromAResolutionCap) {
    const vips::VImage ink =
        (255 - vips::VImage::text("NO PARKING\nLOADING ZONE",
                                  vips::VImage::option()->set("font", "DejaVu Sans Bold 40")->set("dpi", 300)))
            .cast(VIPS_FORMAT_UCHAR);
    const vips::VImage sign = ink.embed(80, 80, ink.width() + 160, ink.height() + 160,
                                        vips::VImage::option()->set("extend", VIPS_EXTEND_WHITE));
    const vips::VImage photo = with_paper(scene(6000, 4000), sign, 1500, 1200); // 24 MP: over the cap
    ASSERT_GT(double(photo.width()) * photo.height(), extractors::k_max_photo_ocr_pixels);
    const TextResult r = extract_image_text(as_bytes(jpeg(photo)), "image/jpeg", {});
    ASSERT_FALSE(r.error) << r.error->message;
    for (const char* word : {"PARKING", "LOADING", "ZONE"}) EXPECT_NE(r.text.find(word), std::string::npos) << r.text;
    EXPECT_EQ(r.ocr_pages.value_or(-1), 1);
}

// A page photographed on its side looks like garbage to the reduced look, but much of it:
// it is read in full, turned upright by orientation detection.
TEST_P(PhotoText, APagePhotographedOnItsSideKeepsItsText) {
    const std::string text = sample_text();
    const vips::VImage page = texttest::text_page(text).rot90();
    const std::string photo = jpeg(with_paper(scene(3024, 4032), page, 400, 600));
    const TextResult r = extract_image_text(as_bytes(photo), "image/jpeg", {});
    ASSERT_FALSE(r.error) << r.error->message;
    const double f1 = texttest::word_f1(text, r.text);
    std::printf("[ figures  ] page photographed on its side: word F1 = %.3f\n", f1);
    EXPECT_GE(f1, 0.9) << r.text;
}

// A page photographed a few degrees askew: the reduced look levels it as the full reading does.
TEST_P(PhotoText, APagePhotographedAskewKeepsItsText) {
    const std::string text = sample_text();
    const vips::VImage page = texttest::text_page(text)
                                  .rotate(8.0, vips::VImage::option()->set("background", std::vector<double>{255.0}))
                                  .cast(VIPS_FORMAT_UCHAR);
    const std::string photo = jpeg(with_paper(scene(4032, 3024), page, 500, 300));
    const TextResult r = extract_image_text(as_bytes(photo), "image/jpeg", {});
    ASSERT_FALSE(r.error) << r.error->message;
    const double f1 = texttest::word_f1(text, r.text);
    std::printf("[ figures  ] page photographed 8 degrees askew: word F1 = %.3f\n", f1);
    EXPECT_GE(f1, 0.9) << r.text;
}

// A page scanned or saved in colour is paper, not a photo: it skips the look (which would
// read its text twice) and is read in grey; photos, colourful or textured, are not paper.
TEST(PaperLook, APageInColourIsPaperAndPhotosAreNot) {
    texttest::vips_start();
    const vips::VImage page = texttest::text_page(sample_text());
    const vips::VImage page_rgb = vips::VImage::bandjoin({page, page, page})
                                      .copy(vips::VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
    EXPECT_TRUE(extractors::looks_like_paper(page_rgb.resize(0.5)));
    EXPECT_FALSE(extractors::looks_like_paper(scene(1200, 900)));
    EXPECT_FALSE(extractors::looks_like_paper(with_paper(scene(1200, 900), page.resize(0.3), 100, 100)));
    EXPECT_FALSE(extractors::looks_like_paper(page)) << "a grey image is never taken for a photo";

    // Read whole: an A4 page at 300 dpi saved as an RGB PNG (8.4 MP, photo-sized colour).
    const vips::VImage sheet =
        page_rgb.embed(0, 0, 2550, 3300, vips::VImage::option()->set("extend", VIPS_EXTEND_WHITE));
    ASSERT_TRUE(extractors::is_photo(sheet));
    const std::string png = texttest::save_buffer(sheet, ".png");
    const TextResult r = extract_image_text(as_bytes(png), "image/png", {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.ocr_pages.value_or(-1), 1);
    EXPECT_GE(texttest::word_f1(sample_text(), r.text), 0.95) << r.text;
}

#include "tests/support/corpus.hpp"
#include "thumbnails/thumbnailer.hpp"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>
#include <vips/vips8>

#include <gtest/gtest.h>
#include <sys/resource.h>

namespace {

using thumbnails::Result;
using vips::VImage;

std::span<const unsigned char> as_bytes(const std::string& bytes) {
    return {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()};
}

std::string blob_to_string(VipsBlob* blob) {
    std::size_t length = 0;
    const void* data = vips_blob_get(blob, &length);
    std::string bytes(static_cast<const char*>(data), length);
    vips_area_unref(VIPS_AREA(blob));
    return bytes;
}

// A smooth colour gradient, so that encoders and resamplers have real content.
VImage gradient(int width, int height, int bands = 3) {
    VImage xy = VImage::xyz(width, height);
    VImage x = xy.extract_band(0) * (255.0 / std::max(1, width - 1));
    VImage y = xy.extract_band(1) * (255.0 / std::max(1, height - 1));
    VImage rgb = x.bandjoin(y).bandjoin((x + y) / 2).cast(VIPS_FORMAT_UCHAR);
    if (bands == 4) {
        rgb = rgb.bandjoin_const({128});
    }
    return rgb.copy(VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
}

std::string jpeg_of(const VImage& image, bool progressive = false) {
    return blob_to_string(image.jpegsave_buffer(VImage::option()->set("Q", 90)->set("interlace", progressive)));
}

std::string png_of(const VImage& image) {
    return blob_to_string(image.pngsave_buffer());
}

VImage load(const std::string& bytes) {
    return VImage::new_from_buffer(bytes, "");
}

// The rule of the conformance check: fit inside s x s, never upscale.
std::pair<int, int> fit(int width, int height, int size) {
    const double k = std::min(1.0, static_cast<double>(size) / std::max(width, height));
    return {std::max(1, static_cast<int>(std::lround(width * k))),
            std::max(1, static_cast<int>(std::lround(height * k)))};
}

bool is_webp(const std::string& bytes) {
    return bytes.size() > 12 && bytes.compare(0, 4, "RIFF") == 0 && bytes.compare(8, 4, "WEBP") == 0;
}

// Checks the three files: WebP, the size they claim, within +-1 of the fit rule
// (exact when `exact`), one frame, no metadata blocks.
void expect_thumbnails(const Result& result, int width, int height, bool exact) {
    ASSERT_FALSE(result.error) << result.error->code << ": " << result.error->message;
    ASSERT_EQ(result.thumbnails.size(), 3U);
    for (std::size_t i = 0; i < 3; ++i) {
        const auto& thumbnail = result.thumbnails[i];
        SCOPED_TRACE("size " + std::to_string(thumbnail.size));
        EXPECT_EQ(thumbnail.size, thumbnails::k_sizes[i]);
        ASSERT_TRUE(is_webp(thumbnail.webp));
        VImage image = load(thumbnail.webp);
        EXPECT_STREQ(vips_foreign_find_load_buffer(thumbnail.webp.data(), thumbnail.webp.size()),
                     "VipsForeignLoadWebpBuffer");
        EXPECT_EQ(image.width(), thumbnail.width);
        EXPECT_EQ(image.height(), thumbnail.height);
        const auto [want_w, want_h] = fit(width, height, thumbnail.size);
        if (exact) {
            EXPECT_EQ(image.width(), want_w);
            EXPECT_EQ(image.height(), want_h);
        } else {
            EXPECT_NEAR(image.width(), want_w, 1);
            EXPECT_NEAR(image.height(), want_h, 1);
        }
        EXPECT_LE(std::max(image.width(), image.height()), thumbnail.size);
        EXPECT_EQ(vips_image_get_n_pages(image.get_image()), 1);
        for (const char* field : {VIPS_META_EXIF_NAME, VIPS_META_XMP_NAME, VIPS_META_ICC_NAME, VIPS_META_IPTC_NAME}) {
            EXPECT_EQ(vips_image_get_typeof(image.get_image(), field), 0U) << field;
        }
    }
}

// Mean absolute difference of the colours, on white where there is alpha (WebP does not
// keep the colour of fully transparent pixels).
double mean_abs_diff(const VImage& a, const VImage& b) {
    auto rgb = [](const VImage& image) {
        VImage srgb = image.colourspace(VIPS_INTERPRETATION_sRGB);
        if (srgb.has_alpha()) {
            srgb = srgb.flatten(VImage::option()->set("background", std::vector<double>{255, 255, 255}));
        }
        return srgb.extract_band(0, VImage::option()->set("n", 3));
    };
    VImage left = rgb(a);
    VImage right = rgb(b);
    return (left.cast(VIPS_FORMAT_FLOAT) - right.cast(VIPS_FORMAT_FLOAT)).abs().avg();
}

std::uint32_t crc32_of(const std::string& bytes) {
    std::uint32_t crc = 0xffffffffU;
    for (unsigned char byte : bytes) {
        crc ^= byte;
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1U)));
        }
    }
    return ~crc;
}

long peak_rss_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

class ThumbnailerTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { thumbnails::init(); }
    void TearDown() override {
        // No failure may leave text in the process-wide libvips error buffer.
        EXPECT_STREQ(vips_error_buffer(), "");
        vips_error_clear();
    }
    thumbnails::Options m_options;
};

TEST_F(ThumbnailerTest, LandscapeJpegFitsEachBox) {
    const Result result = thumbnails::render_image(as_bytes(jpeg_of(gradient(1200, 800))), m_options);
    expect_thumbnails(result, 1200, 800, true);
    EXPECT_EQ(result.thumbnails[0].width, 288);
    EXPECT_EQ(result.thumbnails[0].height, 192);
    EXPECT_EQ(result.thumbnails[1].width, 144);
    EXPECT_EQ(result.thumbnails[2].height, 48);
    EXPECT_EQ(result.width, 1200);
    EXPECT_EQ(result.height, 800);
}

TEST_F(ThumbnailerTest, PortraitPngFitsEachBox) {
    const Result result = thumbnails::render_image(as_bytes(png_of(gradient(600, 900))), m_options);
    expect_thumbnails(result, 600, 900, true);
    EXPECT_EQ(result.thumbnails[0].width, 192);
    EXPECT_EQ(result.thumbnails[0].height, 288);
    EXPECT_EQ(result.width, 600);
    EXPECT_EQ(result.height, 900);
}

TEST_F(ThumbnailerTest, SquareFitsEachBoxExactly) {
    const Result result = thumbnails::render_image(as_bytes(jpeg_of(gradient(500, 500))), m_options);
    expect_thumbnails(result, 500, 500, true);
    for (const auto& thumbnail : result.thumbnails) {
        EXPECT_EQ(thumbnail.width, thumbnail.size);
        EXPECT_EQ(thumbnail.height, thumbnail.size);
    }
}

TEST_F(ThumbnailerTest, OddAspectRatiosStayWithinOnePixelOfTheRule) {
    for (auto [w, h] : {std::pair{1000, 333}, std::pair{333, 1000}, std::pair{2000, 7}, std::pair{7, 2000},
                        std::pair{289, 145}, std::pair{100, 73}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        expect_thumbnails(thumbnails::render_image(as_bytes(png_of(gradient(w, h))), m_options), w, h, false);
    }
}

TEST_F(ThumbnailerTest, TinyImageIsNeverUpscaled) {
    const Result result = thumbnails::render_image(as_bytes(png_of(gradient(40, 30))), m_options);
    expect_thumbnails(result, 40, 30, true);
    for (const auto& thumbnail : result.thumbnails) {
        EXPECT_EQ(thumbnail.width, 40);
        EXPECT_EQ(thumbnail.height, 30);
    }
    EXPECT_EQ(result.width, 40);
    EXPECT_EQ(result.height, 30);
}

TEST_F(ThumbnailerTest, BetweenSizesOnlyTheSmallerBoxesShrink) {
    const Result result = thumbnails::render_image(as_bytes(png_of(gradient(100, 80))), m_options);
    expect_thumbnails(result, 100, 80, true);
    EXPECT_EQ(result.thumbnails[0].width, 100);
    EXPECT_EQ(result.thumbnails[1].width, 100);
    EXPECT_EQ(result.thumbnails[2].width, 72);
}

TEST_F(ThumbnailerTest, AlphaIsKept) {
    INGEST_CORPUS_FILE(path, "img/png/transparent.png");
    const Result result = thumbnails::render_image(as_bytes(testsupport::read_file(path)), m_options);
    expect_thumbnails(result, 200, 150, true);
    for (const auto& thumbnail : result.thumbnails) {
        EXPECT_EQ(load(thumbnail.webp).bands(), 4);
    }
}

TEST_F(ThumbnailerTest, GeneratedAlphaIsKept) {
    const Result result = thumbnails::render_image(as_bytes(png_of(gradient(640, 480, 4))), m_options);
    expect_thumbnails(result, 640, 480, true);
    for (const auto& thumbnail : result.thumbnails) {
        VImage image = load(thumbnail.webp);
        ASSERT_EQ(image.bands(), 4);
        EXPECT_NEAR(image.extract_band(3).avg(), 128, 2);
    }
}

TEST_F(ThumbnailerTest, AnimatedGifGivesItsFirstFrame) {
    INGEST_CORPUS_FILE(path, "img/gif/iss634.gif");
    const std::string bytes = testsupport::read_file(path);
    VImage all = VImage::new_from_buffer(bytes, "", VImage::option()->set("n", -1));
    ASSERT_GT(vips_image_get_n_pages(all.get_image()), 1) << "the corpus file should be animated";
    const int page_height = vips_image_get_page_height(all.get_image());
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, all.width(), page_height, true);
    EXPECT_EQ(result.height, page_height);
    // The 288 thumbnail looks like the first frame, not like a later one.
    VImage first = VImage::new_from_buffer(bytes, "");
    VImage ours = load(result.thumbnails[0].webp);
    ASSERT_EQ(ours.width(), first.width());
    EXPECT_LT(mean_abs_diff(ours, first), 12);
    VImage second = VImage::new_from_buffer(bytes, "", VImage::option()->set("page", 1));
    EXPECT_LT(mean_abs_diff(ours, first), mean_abs_diff(ours, second));
}

TEST_F(ThumbnailerTest, MultiPageTiffGivesItsFirstPage) {
    INGEST_CORPUS_FILE(path, "img/tiff/multipage.tiff");
    const std::string bytes = testsupport::read_file(path);
    VImage first = VImage::new_from_buffer(bytes, "");
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, first.width(), first.height(), true);
}

TEST_F(ThumbnailerTest, CmykJpegBecomesThreeBandSrgb) {
    INGEST_CORPUS_FILE(path, "img/jpeg/pil_sample_cmyk.jpg");
    const std::string bytes = testsupport::read_file(path);
    ASSERT_EQ(load(bytes).interpretation(), VIPS_INTERPRETATION_CMYK);
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, 100, 100, true);
    for (const auto& thumbnail : result.thumbnails) {
        VImage image = load(thumbnail.webp);
        EXPECT_EQ(image.bands(), 3);
        EXPECT_EQ(image.interpretation(), VIPS_INTERPRETATION_sRGB);
    }
    // Same colours as libvips's own CMYK -> sRGB conversion.
    VImage reference = load(bytes).colourspace(VIPS_INTERPRETATION_sRGB);
    EXPECT_LT(mean_abs_diff(load(result.thumbnails[0].webp), reference), 12);
}

TEST_F(ThumbnailerTest, MetadataBlocksAreStripped) {
    for (const char* name : {"img/jpeg/exif_gps.jpg", "img/jpeg/xmp_test.jpg", "img/jpeg/icc_profile_big.jpg",
                             "img/jpeg/sample-xyb.jpg", "img/orient/vips-rotation-6.jpg"}) {
        SCOPED_TRACE(name);
        INGEST_CORPUS_FILE(path, name);
        const std::string bytes = testsupport::read_file(path);
        VImage original = load(bytes);
        const bool had_metadata = vips_image_get_typeof(original.get_image(), VIPS_META_EXIF_NAME) != 0 ||
                                  vips_image_get_typeof(original.get_image(), VIPS_META_XMP_NAME) != 0 ||
                                  vips_image_get_typeof(original.get_image(), VIPS_META_ICC_NAME) != 0;
        EXPECT_TRUE(had_metadata) << "corpus file without metadata: the test proves nothing";
        int width = original.width();
        int height = original.height();
        if (vips_image_get_orientation_swap(original.get_image())) {
            std::swap(width, height);
        }
        expect_thumbnails(thumbnails::render_image(as_bytes(bytes), m_options), width, height, false);
    }
}

TEST_F(ThumbnailerTest, EmbeddedProfileIsAppliedBeforeStripping) {
    // An XYB JPEG is unrecognisable without its ICC profile.
    INGEST_CORPUS_FILE(path, "img/jpeg/sample-xyb.jpg");
    INGEST_CORPUS_FILE(plain, "img/jpeg/sample.jpg");
    const Result result = thumbnails::render_image(as_bytes(testsupport::read_file(path)), m_options);
    ASSERT_FALSE(result.error);
    VImage reference = VImage::thumbnail(plain.c_str(), 288);
    EXPECT_LT(mean_abs_diff(load(result.thumbnails[0].webp), reference), 12);
}

void expect_upright(const char* name, bool swapped, thumbnails::Options options) {
    INGEST_CORPUS_FILE(path, name);
    const std::string bytes = testsupport::read_file(path);
    VImage stored = load(bytes);
    const Result result = thumbnails::render_image(as_bytes(bytes), options);
    ASSERT_FALSE(result.error) << result.error->message;
    if (swapped) {
        EXPECT_EQ(result.width, stored.height());
        EXPECT_EQ(result.height, stored.width());
    } else {
        EXPECT_EQ(result.width, stored.width());
        EXPECT_EQ(result.height, stored.height());
    }
    expect_thumbnails(result, *result.width, *result.height, true);
    // libvips's own autorotated thumbnail is the reference for the pixels and the shape.
    VImage reference = VImage::thumbnail(path.c_str(), 288);
    VImage ours = load(result.thumbnails[0].webp);
    ASSERT_EQ(ours.width(), reference.width());
    ASSERT_EQ(ours.height(), reference.height());
    EXPECT_LT(mean_abs_diff(ours, reference), 12);
    // And it is not the unrotated image.
    if (!swapped) {
        VImage unrotated = VImage::thumbnail(path.c_str(), 288, VImage::option()->set("no_rotate", true));
        EXPECT_GT(mean_abs_diff(ours, unrotated), 12);
    }
}

TEST_F(ThumbnailerTest, ExifOrientation6IsAppliedAndSwapsWidthAndHeight) {
    expect_upright("img/orient/vips-rotation-6.jpg", true, m_options);
}

TEST_F(ThumbnailerTest, ExifOrientation3IsApplied) {
    expect_upright("img/orient/vips-rotation-3.jpg", false, m_options);
}

TEST_F(ThumbnailerTest, EveryConformanceImageGetsThreeFittingThumbnails) {
    for (const char* name :
         {"img/jpeg/flower.jpg", "img/jpeg/xmp_test.jpg", "img/jpeg/ultra-hdr.jpg", "img/jpeg/pil_sample_cmyk.jpg",
          "img/png/transparent.png", "img/png/indexed.png", "img/png/sample.png", "img/gif/iss634.gif",
          "img/gif/hopper.gif", "img/webp/flower.webp", "img/webp/big-height.webp", "img/tiff/sample.tif",
          "img/tiff/pport_g4.tif", "img/webp/iss634.webp", "img/orient/hopper_orientation_3.webp",
          "img/orient/g4_orientation_6.tif"}) {
        SCOPED_TRACE(name);
        INGEST_CORPUS_FILE(path, name);
        const std::string bytes = testsupport::read_file(path);
        VImage header = load(bytes);
        int width = header.width();
        int height = vips_image_get_page_height(header.get_image());
        if (vips_image_get_orientation_swap(header.get_image())) {
            std::swap(width, height);
        }
        const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
        expect_thumbnails(result, width, height, false);
        EXPECT_EQ(result.width, width);
        EXPECT_EQ(result.height, height);
    }
}

TEST_F(ThumbnailerTest, PdfFirstPageFitsEachBox) {
    INGEST_CORPUS_FILE(path, "pdf/text/tracemonkey.pdf");
    const Result result = thumbnails::render_pdf(as_bytes(testsupport::read_file(path)), m_options);
    // US Letter, 612 x 792 points.
    expect_thumbnails(result, 612, 792, false);
    EXPECT_EQ(result.thumbnails[0].height, 288);
    EXPECT_FALSE(result.width);
    EXPECT_FALSE(result.height);
    // A rendered page: mostly white paper with dark text.
    VImage page = load(result.thumbnails[0].webp);
    EXPECT_GT(page.avg(), 200);
    EXPECT_LT(page.min(), 100);
}

TEST_F(ThumbnailerTest, CorruptImagesFailAsValuesOrSucceed) {
    const auto dir = testsupport::corpus_file("img/bad/truncated.jpg").parent_path();
    if (dir.empty()) {
        if (testsupport::in_ci()) {
            FAIL() << "corpus img/bad missing (CI=true)";
        }
        GTEST_SKIP() << "corpus img/bad not found";
    }
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        SCOPED_TRACE(entry.path().string());
        const Result result = thumbnails::render_image(as_bytes(testsupport::read_file(entry.path())), m_options);
        if (result.error) {
            EXPECT_EQ(result.error->code, core::ErrorCode::corrupt_file);
            EXPECT_FALSE(result.error->message.empty());
            EXPECT_TRUE(result.thumbnails.empty());
        } else {
            EXPECT_EQ(result.thumbnails.size(), 3U);
        }
        EXPECT_STREQ(vips_error_buffer(), "");
    }
}

TEST_F(ThumbnailerTest, GarbageAndTruncatedBytesAreCorrupt) {
    const std::string jpeg = jpeg_of(gradient(800, 600));
    for (const std::string& bytes : {std::string(), std::string("not an image at all"), jpeg.substr(0, 200),
                                     std::string("\x89PNG\r\n\x1a\n", 8)}) {
        const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
        ASSERT_TRUE(result.error);
        EXPECT_EQ(result.error->code, core::ErrorCode::corrupt_file);
        EXPECT_NE(result.error->message.find(' '), std::string::npos) << "a sentence";
    }
}

TEST_F(ThumbnailerTest, CorruptAndEncryptedPdfsFailAsValues) {
    const auto bad = testsupport::corpus_file("pdf/bad/invalid.pdf").parent_path();
    if (bad.empty()) {
        GTEST_SKIP() << "corpus pdf/bad not found";
    }
    for (const auto& entry : std::filesystem::directory_iterator(bad)) {
        SCOPED_TRACE(entry.path().string());
        const Result result = thumbnails::render_pdf(as_bytes(testsupport::read_file(entry.path())), m_options);
        if (result.error) {
            EXPECT_TRUE(result.error->code == core::ErrorCode::corrupt_file ||
                        result.error->code == core::ErrorCode::encrypted_pdf)
                << result.error->code;
        } else {
            EXPECT_EQ(result.thumbnails.size(), 3U);
        }
    }
    const Result garbage = thumbnails::render_pdf(as_bytes(std::string("%PDF-1.4 nothing")), m_options);
    ASSERT_TRUE(garbage.error);
    EXPECT_EQ(garbage.error->code, core::ErrorCode::corrupt_file);
}

TEST_F(ThumbnailerTest, PixelBombFailsFastWithBoundedMemory) {
    // A valid PNG signature and IHDR declaring 100000 x 100000 grey pixels, then a tiny IDAT.
    auto chunk = [](const std::string& type, const std::string& data) {
        auto be32 = [](std::uint32_t v) {
            return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                               static_cast<char>(v)};
        };
        const std::string body = type + data;
        return be32(static_cast<std::uint32_t>(data.size())) + body + be32(crc32_of(body));
    };
    std::string ihdr = {0,
                        1,
                        static_cast<char>(0x86),
                        static_cast<char>(0xa0),
                        0,
                        1,
                        static_cast<char>(0x86),
                        static_cast<char>(0xa0),
                        8,
                        0,
                        0,
                        0,
                        0};
    // zlib stream of 1000 zero bytes (stored block), enough to be a plausible start.
    std::string idat = {0x78, 0x01, 0x01, static_cast<char>(0xe8), 0x03, 0x17, static_cast<char>(0xfc)};
    idat += std::string(1000, '\0');
    const std::string png =
        std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", "");
    ASSERT_EQ(load(png).width(), 100000);

    const long rss_before = peak_rss_kib();
    const auto start = std::chrono::steady_clock::now();
    const Result result = thumbnails::render_image(as_bytes(png), m_options);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(result.error);
    EXPECT_EQ(result.error->code, core::ErrorCode::too_many_pixels);
    EXPECT_NE(result.error->message.find("100000x100000"), std::string::npos) << result.error->message;
    EXPECT_LT(elapsed, std::chrono::seconds(1));
    EXPECT_LT(peak_rss_kib() - rss_before, 50 * 1024);
}

TEST_F(ThumbnailerTest, MaxPixelsIsTheFirstPageArea) {
    const std::string jpeg = jpeg_of(gradient(1000, 1000));
    thumbnails::Options options;
    options.max_pixels = 1000 * 1000;
    EXPECT_FALSE(thumbnails::render_image(as_bytes(jpeg), options).error);
    options.max_pixels = 1000 * 1000 - 1;
    const Result refused = thumbnails::render_image(as_bytes(jpeg), options);
    ASSERT_TRUE(refused.error);
    EXPECT_EQ(refused.error->code, core::ErrorCode::too_many_pixels);
}

TEST_F(ThumbnailerTest, SameInputGivesIdenticalBytes) {
    const std::string jpeg = jpeg_of(gradient(1500, 1000), true);
    const Result first = thumbnails::render_image(as_bytes(jpeg), m_options);
    const Result second = thumbnails::render_image(as_bytes(jpeg), m_options);
    ASSERT_FALSE(first.error);
    ASSERT_FALSE(second.error);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(first.thumbnails[i].webp, second.thumbnails[i].webp);
    }
}

TEST_F(ThumbnailerTest, WebpQualityIsHonoured) {
    const std::string jpeg = jpeg_of(gradient(1200, 900));
    thumbnails::Options low;
    low.webp_quality = 10;
    thumbnails::Options high;
    high.webp_quality = 95;
    const Result small = thumbnails::render_image(as_bytes(jpeg), low);
    const Result large = thumbnails::render_image(as_bytes(jpeg), high);
    ASSERT_FALSE(small.error);
    ASSERT_FALSE(large.error);
    EXPECT_LT(small.thumbnails[0].webp.size(), large.thumbnails[0].webp.size());
}

TEST_F(ThumbnailerTest, PassedDeadlineIsATimeout) {
    thumbnails::Options options;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const std::string jpeg = jpeg_of(gradient(300, 200));
    const Result image = thumbnails::render_image(as_bytes(jpeg), options);
    ASSERT_TRUE(image.error);
    EXPECT_EQ(image.error->code, core::ErrorCode::timeout);
    INGEST_CORPUS_FILE(path, "pdf/text/tracemonkey.pdf");
    const Result pdf = thumbnails::render_pdf(as_bytes(testsupport::read_file(path)), options);
    ASSERT_TRUE(pdf.error);
    EXPECT_EQ(pdf.error->code, core::ErrorCode::timeout);
}

TEST_F(ThumbnailerTest, DeadlineDuringTheDecodeIsATimeout) {
    // A baseline JPEG whose decode takes far longer than the 2 ms budget: the evaluation
    // is killed between strips (a progressive one can only stop after its entropy decode).
    const std::string jpeg = jpeg_of(gradient(4000, 3000));
    thumbnails::Options options;
    options.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(2);
    const auto start = std::chrono::steady_clock::now();
    const Result result = thumbnails::render_image(as_bytes(jpeg), options);
    ASSERT_TRUE(result.error);
    EXPECT_EQ(result.error->code, core::ErrorCode::timeout);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(ThumbnailerTest, LoadersOutsideTheListAreBlocked) {
    // A 2x2 24-bit BMP: libvips reads BMP only through ImageMagick, which stays blocked.
    std::string bmp = "BM";
    auto le32 = [](std::uint32_t v) {
        return std::string{static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                           static_cast<char>(v >> 24)};
    };
    const std::string pixels(16, '\x7f');
    bmp += le32(54 + 16) + le32(0) + le32(54);
    bmp += le32(40) + le32(2) + le32(2) + std::string{1, 0, 24, 0} + le32(0) + le32(16) + le32(2835) + le32(2835) +
           le32(0) + le32(0);
    bmp += pixels;
    const std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">"
                            "<rect width=\"100\" height=\"100\" fill=\"red\"/></svg>";
    std::vector<std::string> inputs = {bmp, svg};
    if (const auto pdf = testsupport::corpus_file("pdf/text/tracemonkey.pdf"); !pdf.empty()) {
        inputs.push_back(testsupport::read_file(pdf));
    }
    for (const std::string& bytes : inputs) {
        const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
        ASSERT_TRUE(result.error) << bytes.substr(0, 8);
        EXPECT_EQ(result.error->code, core::ErrorCode::corrupt_file);
    }
}

TEST_F(ThumbnailerTest, AvifIsReadWhenLibheifCanDecodeIt) {
    std::string avif;
    try {
        avif = blob_to_string(gradient(400, 300).heifsave_buffer(
            VImage::option()->set("compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1)));
    } catch (const vips::VError& error) {
        vips_error_clear();
        GTEST_SKIP() << "no AV1 encoder: " << error.what();
    }
    expect_thumbnails(thumbnails::render_image(as_bytes(avif), m_options), 400, 300, true);
}

TEST_F(ThumbnailerTest, SixteenBitAndGreyInputsBecomeEightBitSrgb) {
    VImage grey =
        gradient(500, 400).extract_band(0).copy(VImage::option()->set("interpretation", VIPS_INTERPRETATION_B_W));
    VImage rgb16 = (gradient(500, 400).cast(VIPS_FORMAT_USHORT) * 256)
                       .cast(VIPS_FORMAT_USHORT)
                       .copy(VImage::option()->set("interpretation", VIPS_INTERPRETATION_RGB16));
    for (const VImage& input : {grey, rgb16}) {
        const Result result = thumbnails::render_image(as_bytes(png_of(input)), m_options);
        expect_thumbnails(result, 500, 400, true);
        VImage out = load(result.thumbnails[0].webp);
        EXPECT_EQ(out.format(), VIPS_FORMAT_UCHAR);
        EXPECT_EQ(out.bands(), 3);
    }
}

TEST(ThumbnailerTypes, SupportedImageTypes) {
    for (const char* mime : {"image/jpeg", "image/png", "image/gif", "image/webp", "image/tiff", "image/heic"}) {
        EXPECT_TRUE(thumbnails::is_supported_image(mime)) << mime;
    }
    for (const char* mime :
         {"image/bmp", "image/x-ms-bmp", "image/svg+xml", "application/pdf", "text/plain", "image/x-icon", ""}) {
        EXPECT_FALSE(thumbnails::is_supported_image(mime)) << mime;
    }
}

} // namespace

// The helper's warm-up runs on a PDF built in memory: it must be a real one-page PDF that
// renders, or the warm-up silently warms nothing.
TEST(ThumbnailerWarmUp, TinyPdfRendersAndWarmUpRuns) {
    thumbnails::init();
    const std::string pdf = thumbnails::tiny_pdf();
    const auto bytes = std::span(reinterpret_cast<const unsigned char*>(pdf.data()), pdf.size());
    thumbnails::Result r = thumbnails::render_pdf(bytes, thumbnails::Options{});
    ASSERT_FALSE(r.error) << r.error->message;
    ASSERT_EQ(r.thumbnails.size(), 3u);
    EXPECT_EQ(r.thumbnails.front().width, 200); // the 200x100 pt page, never upscaled
    EXPECT_EQ(r.thumbnails.front().height, 100);
    thumbnails::warm_up(); // never throws
    EXPECT_EQ(std::string(vips_error_buffer()), "");
}

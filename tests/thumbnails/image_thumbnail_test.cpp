// Thumbnails of images made here with libvips: sizes, alpha, limits, bad bytes, formats.
#include "tests/thumbnails/thumbnail_checks.hpp"

#include <chrono>
#include <cstdint>
#include <ostream>

#include <sys/resource.h>

using namespace thumbtest;

namespace {

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

std::string be32(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string png_chunk(const std::string& type, const std::string& data) {
    const std::string body = type + data;
    return be32(static_cast<std::uint32_t>(data.size())) + body + be32(crc32_of(body));
}

long peak_rss_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// An image of `width` x `height` in one format and the size of its largest thumbnail.
struct FitCase {
    const char* format; // "jpeg" or "png"
    int width;
    int height;
    int largest_width;
    int largest_height;
};

void PrintTo(const FitCase& c, std::ostream* out) {
    *out << c.format << " " << c.width << "x" << c.height;
}

class ThumbnailFit : public ThumbnailerTest, public ::testing::WithParamInterface<FitCase> {};

} // namespace

TEST_P(ThumbnailFit, GeneratedImageFitsEachBoxExactly) {
    const FitCase& c = GetParam();
    const VImage image = gradient(c.width, c.height);
    const std::string bytes = std::string(c.format) == "jpeg" ? jpeg_of(image) : png_of(image);
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, c.width, c.height, true);
    EXPECT_EQ(result.thumbnails[0].width, c.largest_width);
    EXPECT_EQ(result.thumbnails[0].height, c.largest_height);
    EXPECT_EQ(result.width, c.width);
    EXPECT_EQ(result.height, c.height);
}

// Landscape, portrait, square, smaller than every box (never upscaled), between two boxes.
INSTANTIATE_TEST_SUITE_P(Shapes, ThumbnailFit,
                         ::testing::Values(FitCase{"jpeg", 1200, 800, 288, 192}, FitCase{"png", 600, 900, 192, 288},
                                           FitCase{"jpeg", 500, 500, 288, 288}, FitCase{"png", 40, 30, 40, 30},
                                           FitCase{"png", 100, 80, 100, 80}),
                         [](const auto& info) {
                             return std::string(info.param.format) + "_" + std::to_string(info.param.width) + "x" +
                                    std::to_string(info.param.height);
                         });

TEST_F(ThumbnailerTest, OddAspectRatiosStayWithinOnePixelOfTheRule) {
    for (auto [w, h] : {std::pair{1000, 333}, std::pair{333, 1000}, std::pair{2000, 7}, std::pair{7, 2000},
                        std::pair{289, 145}, std::pair{100, 73}}) {
        SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h));
        expect_thumbnails(thumbnails::render_image(as_bytes(png_of(gradient(w, h))), m_options), w, h, false);
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

TEST_F(ThumbnailerTest, PixelBombFailsFastWithBoundedMemory) {
    // A valid PNG signature and IHDR declaring 100000 x 100000 grey pixels, then a tiny IDAT.
    const std::string ihdr = be32(100000) + be32(100000) + std::string("\x08\x00\x00\x00\x00", 5);
    // zlib stream of 1000 zero bytes (stored block), enough to be a plausible start.
    std::string idat = {0x78, 0x01, 0x01, static_cast<char>(0xe8), 0x03, 0x17, static_cast<char>(0xfc)};
    idat += std::string(1000, '\0');
    const std::string png =
        std::string("\x89PNG\r\n\x1a\n", 8) + png_chunk("IHDR", ihdr) + png_chunk("IDAT", idat) + png_chunk("IEND", "");
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
    ASSERT_EQ(first.thumbnails.size(), second.thumbnails.size());
    for (std::size_t i = 0; i < first.thumbnails.size(); ++i) {
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
    const Result image = thumbnails::render_image(as_bytes(jpeg_of(gradient(300, 200))), options);
    ASSERT_TRUE(image.error);
    EXPECT_EQ(image.error->code, core::ErrorCode::timeout);
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
    auto le32 = [](std::uint32_t v) {
        return std::string{static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                           static_cast<char>(v >> 24)};
    };
    std::string bmp = "BM" + le32(54 + 16) + le32(0) + le32(54);
    bmp += le32(40) + le32(2) + le32(2) + std::string{1, 0, 24, 0} + le32(0) + le32(16) + le32(2835) + le32(2835) +
           le32(0) + le32(0);
    bmp += std::string(16, '\x7f');
    const std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">"
                            "<rect width=\"100\" height=\"100\" fill=\"red\"/></svg>";
    // A PDF is drawn by Poppler (render_pdf), never by libvips's PDF loader.
    for (const std::string& bytes : {bmp, svg, thumbnails::tiny_pdf()}) {
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

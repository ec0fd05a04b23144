// Images whose header decides the outcome before libvips decodes a pixel, seen by both steps
// (OCR text and thumbnails): valid TIFF variants this build cannot decode, AVIF read for text
// and refused by its declared size, and damaged images of every format, whose sentences are
// a fixed readable set with the library's words kept for the log.
#include "extractors/image_text.hpp"
#include "tests/extractors/text_metrics.hpp"
#include "tests/thumbnails/thumbnail_checks.hpp"

#include <cstdint>
#include <cstring>
#include <set>

#include <tiffio.h>

using namespace thumbtest;
using extractors::extract_image_text;
using extractors::TextResult;

namespace {

// The first page of sample paragraph 0, as the OCR tests render it.
const VImage& text_page() {
    static const VImage page = texttest::text_page(texttest::sample_paragraphs()[0]).copy_memory();
    return page;
}

// A valid TIFF with YCbCr colour subsampled 2x2 and no compression (TIFF 6.0 section 21),
// written with libtiff: each 2x2 block is four Y samples then Cb and Cr.
std::string ycbcr_subsampled_tiff(const VImage& grey, const std::filesystem::path& path) {
    const VImage mem = grey.crop(0, 0, grey.width() & ~1, grey.height() & ~1).copy_memory();
    const int w = mem.width(), h = mem.height();
    const auto* px = static_cast<const unsigned char*>(mem.data());
    std::vector<unsigned char> data;
    for (int y = 0; y < h; y += 2) {
        for (int x = 0; x < w; x += 2) {
            for (int dy = 0; dy < 2; ++dy) {
                for (int dx = 0; dx < 2; ++dx) data.push_back(px[std::size_t(y + dy) * w + std::size_t(x + dx)]);
            }
            data.push_back(128); // Cb, Cr: no colour
            data.push_back(128);
        }
    }
    TIFF* tiff = TIFFOpen(path.c_str(), "w");
    EXPECT_NE(tiff, nullptr);
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, w);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, h);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, 8);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, 3);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
    TIFFSetField(tiff, TIFFTAG_YCBCRSUBSAMPLING, 2, 2);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, h);
    EXPECT_EQ(TIFFWriteRawStrip(tiff, 0, data.data(), tmsize_t(data.size())), tmsize_t(data.size()));
    TIFFClose(tiff);
    return testsupport::read_file(path);
}

// A little-endian TIFF's first-directory tag `tag` (a SHORT) set to `value`.
void patch_short_tag(std::string& tiff, std::uint16_t tag, std::uint16_t value) {
    const auto u16 = [&](std::size_t at) {
        return std::uint16_t(std::uint8_t(tiff[at]) | std::uint8_t(tiff[at + 1]) << 8);
    };
    std::uint32_t ifd = 0;
    std::memcpy(&ifd, tiff.data() + 4, 4);
    const std::uint16_t count = u16(ifd);
    for (std::uint16_t i = 0; i < count; ++i) {
        const std::size_t entry = ifd + 2 + 12 * std::size_t(i);
        if (u16(entry) == tag) {
            tiff[entry + 8] = char(value & 0xff);
            tiff[entry + 9] = char(value >> 8);
            return;
        }
    }
    ADD_FAILURE() << "no tag " << tag;
}

void expect_unsupported(const std::string& bytes, const std::string& variant, const thumbnails::Options& options) {
    const TextResult text = extract_image_text(as_bytes(bytes), "image/tiff", options);
    ASSERT_TRUE(text.error);
    EXPECT_EQ(text.error->code, core::ErrorCode::unsupported_format) << text.error->message;
    EXPECT_NE(text.error->message.find(variant), std::string::npos) << text.error->message;
    EXPECT_EQ(text.error->message.find("tiff2vips"), std::string::npos) << text.error->message;
    EXPECT_FALSE(text.error->detail.empty()); // libvips's words, for the log
    const Result thumbs = thumbnails::render_image(as_bytes(bytes), options);
    ASSERT_TRUE(thumbs.error);
    EXPECT_EQ(thumbs.error->code, core::ErrorCode::unsupported_format) << thumbs.error->message;
    EXPECT_EQ(thumbs.error->message, text.error->message);
}

// An AVIF of the text page, or empty when this libheif has no AV1 encoder.
std::string avif_of(const VImage& image) {
    try {
        return blob_to_string(
            image.colourspace(VIPS_INTERPRETATION_sRGB)
                .heifsave_buffer(
                    VImage::option()->set("compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1)->set("Q", 90)));
    } catch (const vips::VError&) {
        vips_error_clear();
        return {};
    }
}

// `avif` with the size its `ispe` box declares set to `width` x `height`.
std::string with_declared_size(std::string avif, std::uint32_t width, std::uint32_t height) {
    const std::size_t at = avif.find("ispe");
    EXPECT_NE(at, std::string::npos);
    for (int i = 0; i < 4; ++i) {
        avif[at + 8 + i] = char(width >> (24 - 8 * i));
        avif[at + 12 + i] = char(height >> (24 - 8 * i));
    }
    return avif;
}

} // namespace

TEST_F(ThumbnailerTest, YCbCrSubsampledTiffIsUnsupportedNotDamaged) {
    testsupport::TempDir dir;
    const std::string tiff = ycbcr_subsampled_tiff(text_page(), dir.path() / "ycbcr.tif");
    expect_unsupported(tiff, "YCbCr colour with chroma subsampling (2x2)", m_options);
}

TEST_F(ThumbnailerTest, OldStyleJpegTiffIsUnsupportedNotDamaged) {
    // A JPEG-compressed TIFF whose Compression tag says 6, the old-style JPEG of TIFF 6.0.
    std::string tiff = blob_to_string(
        gradient(320, 240).tiffsave_buffer(VImage::option()->set("compression", VIPS_FOREIGN_TIFF_COMPRESSION_JPEG)));
    patch_short_tag(tiff, TIFFTAG_COMPRESSION, COMPRESSION_OJPEG);
    expect_unsupported(tiff, "old-style JPEG compression", m_options);
}

TEST_F(ThumbnailerTest, CorpusTiffVariantsAreUnsupported) {
    INGEST_CORPUS_FILE(ojpeg, "img/tiff/ojpeg-strip.tif");
    INGEST_CORPUS_FILE(subsampled, "img/tiff/subsampled.tif");
    expect_unsupported(testsupport::read_file(ojpeg), "old-style JPEG compression", m_options);
    expect_unsupported(testsupport::read_file(subsampled), "YCbCr colour with chroma subsampling", m_options);
}

TEST_F(ThumbnailerTest, AvifIsReadForText) {
    const std::string avif = avif_of(text_page());
    if (avif.empty()) GTEST_SKIP() << "no AV1 encoder to make the sample";
    EXPECT_TRUE(extractors::is_ocr_image("image/avif"));
    const TextResult r = extract_image_text(as_bytes(avif), "image/avif", {});
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, "ocr");
    EXPECT_LE(texttest::cer(texttest::sample_paragraphs()[0], r.text), 0.03) << r.text;
}

TEST_F(ThumbnailerTest, HugeAvifIsTooManyPixelsBeforeDecoding) {
    // 17000 x 17000 (289 megapixels) declared: above INGEST_MAX_PIXELS and above libheif's
    // own side limit, which would otherwise answer with its raw message.
    const std::string small = avif_of(gradient(64, 48));
    if (small.empty()) GTEST_SKIP() << "no AV1 encoder to make the sample";
    const std::string huge = with_declared_size(small, 17000, 17000);
    const TextResult text = extract_image_text(as_bytes(huge), "image/avif", m_options);
    ASSERT_TRUE(text.error);
    EXPECT_EQ(text.error->code, core::ErrorCode::too_many_pixels) << text.error->message;
    EXPECT_NE(text.error->message.find("17000x17000"), std::string::npos) << text.error->message;
    const Result thumbs = thumbnails::render_image(as_bytes(huge), m_options);
    ASSERT_TRUE(thumbs.error);
    EXPECT_EQ(thumbs.error->code, core::ErrorCode::too_many_pixels) << thumbs.error->message;
    // The file as it was made, within the limit, is drawn.
    const Result fine = thumbnails::render_image(as_bytes(small), m_options);
    EXPECT_FALSE(fine.error);
}

// Truncated and garbled images of each format: every failure's sentence is one of a fixed
// readable set (no library text joined with ':'), and the library's words are the detail.
TEST_F(ThumbnailerTest, DamagedImagesGiveFixedSentences) {
    const VImage image = gradient(300, 200);
    std::vector<std::pair<std::string, std::string>> samples = {
        {"image/jpeg", jpeg_of(image)},
        {"image/png", png_of(image)},
        {"image/gif", blob_to_string(image.gifsave_buffer())},
        {"image/webp", blob_to_string(image.webpsave_buffer())},
        {"image/tiff", blob_to_string(image.tiffsave_buffer())},
    };
    if (std::string avif = avif_of(image); !avif.empty()) samples.emplace_back("image/avif", avif);
    const std::set<std::string> sentences = {
        "The image is damaged and cannot be decoded.",
        "The image file is empty.",
        "The image needs more memory than the job's budget (INGEST_JOB_MEMORY_MB) allows.",
    };
    int failures = 0, with_detail = 0;
    for (const auto& [mime, good] : samples) {
        std::string garbled = good;
        for (std::size_t i = garbled.size() / 3; i < garbled.size() / 3 + 64 && i < garbled.size(); ++i)
            garbled[i] ^= 0x5a;
        for (const std::string& bad : {good.substr(0, 30), good.substr(0, good.size() / 2), garbled}) {
            const TextResult text = extract_image_text(as_bytes(bad), mime, m_options);
            const Result thumbs = thumbnails::render_image(as_bytes(bad), m_options);
            for (const auto* error : {text.error ? &*text.error : nullptr, thumbs.error ? &*thumbs.error : nullptr}) {
                if (error == nullptr) continue;
                ++failures;
                with_detail += error->detail.empty() ? 0 : 1;
                EXPECT_EQ(sentences.count(error->message), 1U) << mime << ": " << error->message;
                EXPECT_EQ(error->message.find(':'), std::string::npos) << mime << ": " << error->message;
            }
        }
    }
    EXPECT_GE(failures, int(samples.size()) * 2); // at least the 30-byte heads fail in both steps
    EXPECT_EQ(with_detail, failures);
}

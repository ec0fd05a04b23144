#pragma once

// What the thumbnail tests share: images made with libvips, and the checks every set of
// thumbnails must pass (WebP, the fit rule, one frame, no metadata).

#include "core/layout.hpp"
#include "tests/support/corpus.hpp"
#include "thumbnails/thumbnailer.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>
#include <vips/vips8>

#include <gtest/gtest.h>

namespace thumbtest {

using thumbnails::Result;
using vips::VImage;

inline std::span<const unsigned char> as_bytes(const std::string& bytes) {
    return {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()};
}

inline std::string blob_to_string(VipsBlob* blob) {
    std::size_t length = 0;
    const void* data = vips_blob_get(blob, &length);
    std::string bytes(static_cast<const char*>(data), length);
    vips_area_unref(VIPS_AREA(blob));
    return bytes;
}

/// A smooth colour gradient, so that encoders and resamplers have real content.
inline VImage gradient(int width, int height, int bands = 3) {
    VImage xy = VImage::xyz(width, height);
    VImage x = xy.extract_band(0) * (255.0 / std::max(1, width - 1));
    VImage y = xy.extract_band(1) * (255.0 / std::max(1, height - 1));
    VImage rgb = x.bandjoin(y).bandjoin((x + y) / 2).cast(VIPS_FORMAT_UCHAR);
    if (bands == 4) {
        rgb = rgb.bandjoin_const({128});
    }
    return rgb.copy(VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
}

inline std::string jpeg_of(const VImage& image, bool progressive = false) {
    return blob_to_string(image.jpegsave_buffer(VImage::option()->set("Q", 90)->set("interlace", progressive)));
}

inline std::string png_of(const VImage& image) {
    return blob_to_string(image.pngsave_buffer());
}

inline VImage load(const std::string& bytes) {
    return VImage::new_from_buffer(bytes, "");
}

/// The rule of the conformance check: fit inside s x s, never upscale.
inline std::pair<int, int> fit(int width, int height, int size) {
    const double k = std::min(1.0, static_cast<double>(size) / std::max(width, height));
    return {std::max(1, static_cast<int>(std::lround(width * k))),
            std::max(1, static_cast<int>(std::lround(height * k)))};
}

inline bool is_webp(const std::string& bytes) {
    return bytes.size() > 12 && bytes.compare(0, 4, "RIFF") == 0 && bytes.compare(8, 4, "WEBP") == 0;
}

/// Checks the three files: largest first, WebP, the size they claim, within +-1 of the fit
/// rule (exact when `exact`), one frame, no metadata blocks.
inline void expect_thumbnails(const Result& result, int width, int height, bool exact) {
    ASSERT_FALSE(result.error) << result.error->code << ": " << result.error->message;
    ASSERT_EQ(result.thumbnails.size(), core::k_thumbnail_sizes.size());
    for (std::size_t i = 0; i < result.thumbnails.size(); ++i) {
        const auto& thumbnail = result.thumbnails[i];
        SCOPED_TRACE("size " + std::to_string(thumbnail.size));
        EXPECT_EQ(thumbnail.size, core::k_thumbnail_sizes[core::k_thumbnail_sizes.size() - 1 - i]);
        ASSERT_TRUE(is_webp(thumbnail.webp));
        VImage image = load(thumbnail.webp);
        EXPECT_STREQ(vips_foreign_find_load_buffer(thumbnail.webp.data(), thumbnail.webp.size()),
                     "VipsForeignLoadWebpBuffer");
        EXPECT_EQ(image.width(), thumbnail.width);
        EXPECT_EQ(image.height(), thumbnail.height);
        const auto [want_w, want_h] = fit(width, height, thumbnail.size);
        EXPECT_NEAR(image.width(), want_w, exact ? 0 : 1);
        EXPECT_NEAR(image.height(), want_h, exact ? 0 : 1);
        EXPECT_LE(std::max(image.width(), image.height()), thumbnail.size);
        EXPECT_EQ(vips_image_get_n_pages(image.get_image()), 1);
        for (const char* field : {VIPS_META_EXIF_NAME, VIPS_META_XMP_NAME, VIPS_META_ICC_NAME, VIPS_META_IPTC_NAME}) {
            EXPECT_EQ(vips_image_get_typeof(image.get_image(), field), 0U) << field;
        }
    }
}

/// Mean absolute difference of the colours, on white where there is alpha (WebP does not
/// keep the colour of fully transparent pixels).
inline double mean_abs_diff(const VImage& a, const VImage& b) {
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

/// libvips set up as the helper sets it up; no test may leave text in its error buffer.
class ThumbnailerTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { thumbnails::init(); }
    void TearDown() override {
        EXPECT_STREQ(vips_error_buffer(), "");
        vips_error_clear();
    }
    thumbnails::Options m_options;
};

} // namespace thumbtest

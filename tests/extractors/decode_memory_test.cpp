// What decoding an image holds at once (issue 20, memory): a progressive JPEG keeps its whole
// image's DCT coefficients until the last scan, whatever size it is decoded to; a baseline
// one and other formats are decoded a band of rows at a time.
#include "extractors/image_header.hpp"

#include <string>
#include <vips/vips8>

#include <gtest/gtest.h>

namespace {

// A 300 x 200 JPEG of `bands` bands: progressive or not, chroma subsampled or not.
std::string jpeg(int bands, bool progressive, bool subsampled) {
    vips::VImage image = vips::VImage::xyz(300, 200).extract_band(0);
    if (bands == 3) image = vips::VImage::bandjoin({image, image * 0.5, image * 0.25});
    image = image.cast(VIPS_FORMAT_UCHAR);
    void* data = nullptr;
    std::size_t size = 0;
    image.write_to_buffer(
        ".jpg", &data, &size,
        vips::VImage::option()
            ->set("Q", 80)
            ->set("interlace", progressive)
            ->set("subsample_mode", subsampled ? VIPS_FOREIGN_SUBSAMPLE_ON : VIPS_FOREIGN_SUBSAMPLE_OFF));
    std::string bytes(static_cast<const char*>(data), size);
    g_free(data);
    return bytes;
}

std::uint64_t whole(const std::string& bytes, const std::string& mime = "image/jpeg") {
    return extractors::whole_image_bytes({reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()}, mime);
}

TEST(DecodeMemory, AProgressiveJpegHoldsTwoBytesPerPixelOfEachFullPlane) {
    ASSERT_EQ(VIPS_INIT("decode_memory_test"), 0);
    const double pixels = 300.0 * 200.0;
    EXPECT_EQ(whole(jpeg(3, true, false)), std::uint64_t(pixels * 2 * 3));  // 4:4:4
    EXPECT_EQ(whole(jpeg(3, true, true)), std::uint64_t(pixels * 2 * 1.5)); // 4:2:0
    EXPECT_EQ(whole(jpeg(1, true, false)), std::uint64_t(pixels * 2));      // grey
}

TEST(DecodeMemory, BaselineJpegsOtherTypesAndBrokenHeadersHoldNothingWhole) {
    ASSERT_EQ(VIPS_INIT("decode_memory_test"), 0);
    EXPECT_EQ(whole(jpeg(3, false, false)), 0u);
    EXPECT_EQ(whole(jpeg(3, true, false), "image/png"), 0u); // only the type it was detected as counts
    const std::string progressive = jpeg(3, true, true);
    EXPECT_EQ(whole(progressive.substr(0, 20)), 0u); // a header cut short: decoding says what is wrong
    EXPECT_EQ(whole("not a jpeg at all"), 0u);
    EXPECT_EQ(whole(""), 0u);
    EXPECT_EQ(vips_error_buffer(), std::string()); // nothing left for the next file
}

} // namespace

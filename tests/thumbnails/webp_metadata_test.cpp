#include "thumbnails/webp_metadata.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <vips/vips8>

#include <gtest/gtest.h>

namespace {

std::string le32(std::uint32_t v) {
    return {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16), static_cast<char>(v >> 24)};
}

std::string chunk(const std::string& fourcc, const std::string& payload) {
    std::string out = fourcc + le32(static_cast<std::uint32_t>(payload.size())) + payload;
    if (payload.size() & 1) {
        out.push_back('\0');
    }
    return out;
}

std::string riff(const std::string& chunks) {
    return "RIFF" + le32(static_cast<std::uint32_t>(4 + chunks.size())) + "WEBP" + chunks;
}

// The fourccs of a file, in order, and the VP8X flags when there is one.
std::vector<std::string> fourccs(const std::string& webp, int* flags = nullptr) {
    std::vector<std::string> out;
    std::size_t at = 12;
    while (at + 8 <= webp.size()) {
        const std::string fourcc = webp.substr(at, 4);
        const std::uint32_t length = static_cast<unsigned char>(webp[at + 4]) |
                                     static_cast<unsigned char>(webp[at + 5]) << 8 |
                                     static_cast<unsigned char>(webp[at + 6]) << 16 |
                                     static_cast<std::uint32_t>(static_cast<unsigned char>(webp[at + 7])) << 24;
        if (fourcc == "VP8X" && flags != nullptr) {
            *flags = static_cast<unsigned char>(webp[at + 8]);
        }
        out.push_back(fourcc);
        at += 8 + length + (length & 1);
    }
    return out;
}

TEST(WebpMetadata, DropsExifXmpAndIccAndTheirFlags) {
    const std::string vp8x = std::string{0x20 | 0x10 | 0x08 | 0x04, 0, 0, 0} + std::string(6, '\x01');
    const std::string input =
        riff(chunk("VP8X", vp8x) + chunk("ICCP", "icc") + chunk("ALPH", "alpha") + chunk("VP8 ", "bitstream!") +
             chunk("EXIF", "Exif\0\0II") + chunk("XMP ", "<x:xmpmeta/>"));
    int flags = -1;
    const std::string out = thumbnails::strip_webp_metadata(input);
    EXPECT_EQ(fourccs(out, &flags), (std::vector<std::string>{"VP8X", "ALPH", "VP8 "}));
    EXPECT_EQ(flags, 0x10) << "only the alpha flag stays";
    EXPECT_EQ(out.size(), 8 + static_cast<std::size_t>(static_cast<unsigned char>(out[4]) |
                                                       static_cast<unsigned char>(out[5]) << 8));
    EXPECT_NE(out.find("alpha"), std::string::npos);
    EXPECT_EQ(out.find("Exif"), std::string::npos);
}

TEST(WebpMetadata, VP8XWithNothingLeftBecomesTheSimpleFormat) {
    const std::string vp8x = std::string{0x08, 0, 0, 0} + std::string(6, '\x01');
    const std::string out =
        thumbnails::strip_webp_metadata(riff(chunk("VP8X", vp8x) + chunk("VP8 ", "abc") + chunk("EXIF", "exif")));
    EXPECT_EQ(fourccs(out), (std::vector<std::string>{"VP8 "}));
    EXPECT_EQ(out, riff(chunk("VP8 ", "abc")));
}

TEST(WebpMetadata, FileWithoutMetadataIsUnchanged) {
    const std::string input = riff(chunk("VP8L", "lossless bits"));
    EXPECT_EQ(thumbnails::strip_webp_metadata(input), input);
}

TEST(WebpMetadata, MalformedInputThrows) {
    for (const std::string& bad :
         {std::string(), std::string("RIFF\0\0\0\0WEBX", 12), riff("VP8 " + le32(1000) + "short"), riff("VP8")}) {
        EXPECT_THROW(thumbnails::strip_webp_metadata(bad), std::runtime_error);
    }
}

TEST(WebpMetadata, LibvipsOutputLoadsBackWithoutMetadata) {
    ASSERT_EQ(VIPS_INIT("webp_metadata_test"), 0);
    vips::VImage image = vips::VImage::black(64, 48, vips::VImage::option()->set("bands", 4)) + 100;
    image = image.cast(VIPS_FORMAT_UCHAR).copy(vips::VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
    VipsBlob* blob = image.webpsave_buffer(vips::VImage::option()->set("strip", true));
    std::size_t length = 0;
    const void* data = vips_blob_get(blob, &length);
    const std::string saved(static_cast<const char*>(data), length);
    vips_area_unref(VIPS_AREA(blob));

    const std::string out = thumbnails::strip_webp_metadata(saved);
    vips::VImage back = vips::VImage::new_from_buffer(out, "");
    EXPECT_EQ(back.width(), 64);
    EXPECT_EQ(back.bands(), 4);
    for (const char* field : {VIPS_META_EXIF_NAME, VIPS_META_XMP_NAME, VIPS_META_ICC_NAME}) {
        EXPECT_EQ(vips_image_get_typeof(back.get_image(), field), 0U) << field;
    }
}

} // namespace

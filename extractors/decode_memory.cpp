// How much memory decoding an image needs at once, whatever the size it is decoded to.
#include "extractors/image_header.hpp"

#include <memory>

#include <vips/vips.h>

namespace extractors {
namespace {

// Full-resolution planes of a JPEG's DCT coefficients, from libvips's name for its
// sampling: 4:4:4 keeps both chroma planes whole, 4:2:0 a quarter of each.
double planes_of(const char* subsampling, int bands) {
    if (bands == 1) return 1.0;
    const std::string s = subsampling != nullptr ? subsampling : "4:2:0";
    if (s.rfind("4:4:4", 0) == 0) return bands;
    if (s.rfind("4:2:2", 0) == 0) return bands == 4 ? 3.0 : 2.0;
    return bands == 4 ? 2.5 : 1.5;
}

struct Unref {
    void operator()(VipsImage* image) const { g_object_unref(image); }
};

} // namespace

std::uint64_t whole_image_bytes(std::span<const unsigned char> bytes, const std::string& mime) {
    if (mime != "image/jpeg" || bytes.empty()) return 0;
    // The header only: libjpeg reads the markers, no pixel is decoded.
    const std::unique_ptr<VipsImage, Unref> image(
        vips_image_new_from_buffer(bytes.data(), bytes.size(), "", "access", VIPS_ACCESS_SEQUENTIAL, nullptr));
    if (!image) {
        vips_error_clear();
        return 0; // decoding says what is wrong with it
    }
    int interlaced = 0;
    if (vips_image_get_typeof(image.get(), "interlaced") == 0 ||
        vips_image_get_int(image.get(), "interlaced", &interlaced) != 0 || interlaced == 0) {
        vips_error_clear();
        return 0; // baseline: libjpeg decodes it a band of rows at a time
    }
    const char* subsampling = nullptr;
    if (vips_image_get_typeof(image.get(), "jpeg-chroma-subsample") != 0) {
        vips_image_get_string(image.get(), "jpeg-chroma-subsample", &subsampling);
    }
    const double pixels = double(vips_image_get_width(image.get())) * double(vips_image_get_height(image.get()));
    // 64 coefficients of 2 bytes per 8x8 block: 2 bytes per pixel per full-resolution plane.
    return static_cast<std::uint64_t>(pixels * 2.0 * planes_of(subsampling, vips_image_get_bands(image.get())));
}

} // namespace extractors

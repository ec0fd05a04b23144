#include "thumbnails/image_thumbnail.hpp"

#include "extractors/image_header.hpp"
#include "extractors/vips_error.hpp"
#include "thumbnails/render_guard.hpp"
#include "thumbnails/webp_encoder.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vips/vips8>

namespace thumbnails {

namespace {

using Clock = std::chrono::steady_clock;

struct BlobUnref {
    void operator()(VipsBlob* blob) const { vips_area_unref(VIPS_AREA(blob)); }
};
using BlobPtr = std::unique_ptr<VipsBlob, BlobUnref>;

// What the header says, before any pixel is decoded.
struct Header {
    int width = 0;
    int height = 0;    // of the first frame / page
    bool swap = false; // EXIF orientation turns the image by 90 or 270 degrees
    bool has_profile = false;
};

Header read_header(std::span<const unsigned char> bytes) {
    // Header only: a lazy, sequential open decodes no pixel.
    vips::VImage header = vips::VImage::new_from_buffer(bytes.data(), bytes.size(), "",
                                                        vips::VImage::option()->set("access", VIPS_ACCESS_SEQUENTIAL));
    Header h;
    h.width = header.width();
    h.height = vips_image_get_page_height(header.get_image());
    h.swap = vips_image_get_orientation_swap(header.get_image()) != 0;
    h.has_profile = vips_image_get_typeof(header.get_image(), VIPS_META_ICC_NAME) != 0;
    return h;
}

void on_eval(VipsImage* image, VipsProgress* /*progress*/, void* user) {
    const auto* deadline = static_cast<const Clock::time_point*>(user);
    if (Clock::now() >= *deadline) {
        vips_image_set_kill(image, TRUE);
    }
}

// Computes `image` into memory once, so the smaller sizes and the encoder read
// pixels instead of re-running the decode; a passed deadline kills the evaluation.
vips::VImage materialise(const vips::VImage& image, const Options& options) {
    vips::VImage memory = vips::VImage::new_memory();
    if (options.deadline != Clock::time_point::max()) {
        vips_image_set_progress(memory.get_image(), TRUE);
        g_signal_connect(memory.get_image(), "eval", G_CALLBACK(on_eval),
                         const_cast<Clock::time_point*>(&options.deadline));
    }
    image.write(memory);
    return memory;
}

// 8-bit sRGB with 3 bands, or 4 with alpha: what the WebP files hold.
vips::VImage to_srgb(vips::VImage image) {
    if (image.interpretation() != VIPS_INTERPRETATION_sRGB || image.bands() < 3) {
        image = image.colourspace(VIPS_INTERPRETATION_sRGB);
    }
    if (image.format() != VIPS_FORMAT_UCHAR) {
        image = image.cast(VIPS_FORMAT_UCHAR);
    }
    return image;
}

// One decode: shrink-on-load straight to the largest box (first frame/page only, the
// loader default n=1), computed into memory in sRGB.
vips::VImage decode_largest(std::span<const unsigned char> bytes, bool has_profile, const Options& options) {
    // Borrowed, not copied: every image built on it is dropped before we return, and
    // the operation cache is off (see init), so nothing keeps a reference.
    BlobPtr blob(vips_blob_new(nullptr, bytes.data(), bytes.size()));
    vips::VOption* thumbnail_options = vips::VImage::option()
                                           ->set("height", k_largest_size)
                                           ->set("size", VIPS_SIZE_DOWN)
                                           ->set("fail_on", VIPS_FAIL_ON_NONE);
    if (has_profile) {
        // Convert with the embedded profile (Adobe RGB, CMYK, XYB...) rather than
        // reinterpreting its numbers as sRGB. Perceptual is the intent every profile
        // has (AToB0; XYB JPEG profiles have no relative one) and what browsers use.
        thumbnail_options->set("export_profile", "srgb")->set("intent", VIPS_INTENT_PERCEPTUAL);
    }
    const vips::VImage thumbnail = vips::VImage::thumbnail_buffer(blob.get(), k_largest_size, thumbnail_options);
    return materialise(to_srgb(thumbnail), options);
}

Result render_image_unchecked(std::span<const unsigned char> bytes, const Options& options) {
    if (bytes.empty()) {
        return failure(core::ErrorCode::corrupt_file, "The image file is empty.");
    }
    if (auto too_big = extractors::heif_size_failure(bytes, options.max_pixels)) {
        return failure(std::move(*too_big)); // before libheif refuses it with its own words
    }
    const Header header = read_header(bytes);
    const auto pixels = static_cast<std::uint64_t>(header.width) * static_cast<std::uint64_t>(header.height);
    if (pixels > options.max_pixels) {
        return failure(extractors::too_many_pixels_failure(std::uint64_t(header.width), std::uint64_t(header.height),
                                                           options.max_pixels));
    }
    if (expired(options)) {
        return timed_out();
    }
    const vips::VImage base = decode_largest(bytes, header.has_profile, options);
    if (expired(options)) {
        return timed_out();
    }
    Result result = encode_sizes(base, true, options);
    if (!result.error) {
        result.width = header.swap ? header.height : header.width;
        result.height = header.swap ? header.width : header.height;
    }
    return result;
}

// render_image_unchecked(), with a TIFF that libvips cannot decode told apart from a damaged
// one: a valid variant it does not read is unsupported_format, named.
Result render_image_checked(std::span<const unsigned char> bytes, const Options& options) {
    try {
        return render_image_unchecked(bytes, options);
    } catch (const vips::VError& error) {
        std::optional<core::Failure> variant = extractors::tiff_variant_failure(bytes);
        if (!variant) throw;
        variant->detail = extractors::vips_error_line(error);
        return failure(std::move(*variant));
    }
}

} // namespace

bool is_supported_image(const std::string& mime) {
    static constexpr const char* k_types[] = {
        "image/jpeg", "image/png",  "image/gif",           "image/webp",          "image/tiff",
        "image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence", "image/avif",
    };
    return std::any_of(std::begin(k_types), std::end(k_types), [&](const char* type) { return mime == type; });
}

Result render_image(std::span<const unsigned char> bytes, const Options& options) {
    return guarded(render_image_checked, bytes, options, "image");
}

} // namespace thumbnails

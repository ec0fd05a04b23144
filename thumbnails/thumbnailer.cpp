#include "thumbnails/thumbnailer.hpp"

#include "extractors/step.hpp"
#include "thumbnails/webp_metadata.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>
#include <vips/vips8>

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

namespace thumbnails {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int k_largest = k_sizes[0];

// Bound on the libvips text kept in an error sentence.
constexpr std::size_t k_max_message = 300;

// Loader families (file, buffer and source variants share one parser) that stay
// usable after every other loader is blocked. PDF, SVG, ImageMagick & co stay blocked.
constexpr const char* k_allowed_loaders[] = {
    "VipsForeignLoadJpeg", "VipsForeignLoadPng",  "VipsForeignLoadNsgif",
    "VipsForeignLoadWebp", "VipsForeignLoadTiff", "VipsForeignLoadHeif",
};

// Metadata that must not steer the derived sizes: orientation was applied by
// thumbnail, page-height would turn a single frame into an animation.
constexpr const char* k_dropped_fields[] = {
    VIPS_META_ORIENTATION, VIPS_META_PAGE_HEIGHT, VIPS_META_N_PAGES,   VIPS_META_ICC_NAME,
    VIPS_META_EXIF_NAME,   VIPS_META_XMP_NAME,    VIPS_META_IPTC_NAME,
};

struct BlobUnref {
    void operator()(VipsBlob* blob) const { vips_area_unref(VIPS_AREA(blob)); }
};
using BlobPtr = std::unique_ptr<VipsBlob, BlobUnref>;

Result failure(core::ErrorCode code, std::string message) {
    Result result;
    result.error = Result::Error{code, std::move(message)};
    return result;
}

bool expired(const Options& options) {
    return Clock::now() >= options.deadline;
}

Result timed_out() {
    return failure(core::ErrorCode::timeout, "The thumbnail ran out of time.");
}

// The libvips message as one line, then the global error buffer cleared so the
// next file on this process does not inherit it.
std::string vips_message(const vips::VError& error) {
    std::string text = error.what();
    vips_error_clear();
    std::string line;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string part = text.substr(start, end - start);
        // Loaders often repeat a warning once per strip: keep each sentence once.
        if (!part.empty() && line.find(part) == std::string::npos) {
            if (!line.empty()) {
                line += "; ";
            }
            line += part;
        }
        start = end + 1;
    }
    if (line.empty()) {
        line = "unknown libvips error";
    }
    if (line.size() > k_max_message) {
        line.resize(k_max_message);
    }
    while (!line.empty() && (line.back() == '.' || line.back() == ' ')) {
        line.pop_back();
    }
    return line;
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

vips::VImage without_metadata(const vips::VImage& image) {
    vips::VImage copy = image.copy();
    for (const char* field : k_dropped_fields) {
        if (vips_image_get_typeof(copy.get_image(), field) != 0) {
            copy.remove(field);
        }
    }
    return copy;
}

// libwebp's effort (method) 2 instead of the default 4: at thumbnail sizes it encodes
// 2.3 times faster for files about 2 % larger (measured at 288 px); encoding was a quarter
// of the thumbnail step's time.
constexpr int k_webp_effort = 2;

std::string encode_webp(const vips::VImage& image, const Options& options) {
    VipsBlob* raw = image.webpsave_buffer(
        vips::VImage::option()->set("Q", options.webp_quality)->set("effort", k_webp_effort)->set("strip", true));
    BlobPtr blob(raw);
    std::size_t length = 0;
    const void* data = vips_blob_get(blob.get(), &length);
    // `strip` is ignored by webpsave in libvips 8.14.1 (see webp_metadata.hpp).
    return strip_webp_metadata(std::string_view(static_cast<const char*>(data), length));
}

// Encodes the three sizes from `base`, an in-memory sRGB image; `base_fits` says that
// it already is the 288 thumbnail, otherwise every size is derived from it.
Result encode_sizes(const vips::VImage& base, bool base_fits, const Options& options) {
    Result result;
    const vips::VImage clean = without_metadata(base);
    for (int size : k_sizes) {
        if (expired(options)) {
            return timed_out();
        }
        vips::VImage image = clean;
        if (!(base_fits && size == k_largest)) {
            image = clean.thumbnail_image(
                size, vips::VImage::option()->set("height", size)->set("size", VIPS_SIZE_DOWN)->set("no_rotate", true));
        }
        Thumbnail thumbnail;
        thumbnail.size = size;
        thumbnail.width = image.width();
        thumbnail.height = image.height();
        thumbnail.webp = encode_webp(image, options);
        result.thumbnails.push_back(std::move(thumbnail));
    }
    return result;
}

Result render_image_unchecked(std::span<const unsigned char> bytes, const Options& options) {
    if (bytes.empty()) {
        return failure(core::ErrorCode::corrupt_file, "The image file is empty.");
    }
    // Borrowed, not copied: every image built on it is dropped before we return, and
    // the operation cache is off (see init), so nothing keeps a reference.
    BlobPtr blob(vips_blob_new(nullptr, bytes.data(), bytes.size()));

    int width = 0;
    int height = 0;
    bool swap = false;
    bool has_profile = false;
    {
        // Header only: a lazy, sequential open decodes no pixel.
        vips::VImage header = vips::VImage::new_from_buffer(
            bytes.data(), bytes.size(), "", vips::VImage::option()->set("access", VIPS_ACCESS_SEQUENTIAL));
        width = header.width();
        height = vips_image_get_page_height(header.get_image());
        swap = vips_image_get_orientation_swap(header.get_image()) != 0;
        has_profile = vips_image_get_typeof(header.get_image(), VIPS_META_ICC_NAME) != 0;
    }
    const auto pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
    if (pixels > options.max_pixels) {
        return failure(core::ErrorCode::too_many_pixels, "The image is " + std::to_string(width) + "x" +
                                                             std::to_string(height) + " pixels, above the limit of " +
                                                             std::to_string(options.max_pixels) + ".");
    }
    if (expired(options)) {
        return timed_out();
    }

    // One decode: shrink-on-load straight to the largest box (first frame/page only,
    // the loader default n=1), then the smaller sizes come from that image in memory.
    vips::VOption* thumbnail_options = vips::VImage::option()
                                           ->set("height", k_largest)
                                           ->set("size", VIPS_SIZE_DOWN)
                                           ->set("fail_on", VIPS_FAIL_ON_NONE);
    if (has_profile) {
        // Convert with the embedded profile (Adobe RGB, CMYK, XYB...) rather than
        // reinterpreting its numbers as sRGB. Perceptual is the intent every profile
        // has (AToB0; XYB JPEG profiles have no relative one) and what browsers use.
        thumbnail_options->set("export_profile", "srgb")->set("intent", VIPS_INTENT_PERCEPTUAL);
    }
    vips::VImage thumbnail = vips::VImage::thumbnail_buffer(blob.get(), k_largest, thumbnail_options);
    vips::VImage base = materialise(to_srgb(thumbnail), options);
    thumbnail = vips::VImage();
    if (expired(options)) {
        return timed_out();
    }

    Result result = encode_sizes(base, true, options);
    if (!result.error) {
        result.width = swap ? height : width;
        result.height = swap ? width : height;
    }
    return result;
}

void silence_poppler(const std::string& /*message*/, void* /*closure*/) {}

void silence_glib(const gchar* /*domain*/, GLogLevelFlags /*level*/, const gchar* /*message*/, gpointer /*data*/) {}

// Poppler's ARGB32 is native-endian 0xAARRGGBB on a white paper, so alpha is opaque:
// keep RGB only.
vips::VImage wrap_rendering(const poppler::image& rendered) {
    const int width = rendered.width();
    const int height = rendered.height();
    const int stride = rendered.bytes_per_row();
    const char* data = rendered.const_data();
    std::vector<unsigned char> rgb(static_cast<std::size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y) {
        const char* row = data + static_cast<std::ptrdiff_t>(y) * stride;
        unsigned char* out = rgb.data() + static_cast<std::size_t>(y) * width * 3;
        for (int x = 0; x < width; ++x) {
            std::uint32_t pixel = 0;
            std::memcpy(&pixel, row + static_cast<std::ptrdiff_t>(x) * 4, sizeof pixel);
            out[x * 3 + 0] = static_cast<unsigned char>(pixel >> 16);
            out[x * 3 + 1] = static_cast<unsigned char>(pixel >> 8);
            out[x * 3 + 2] = static_cast<unsigned char>(pixel);
        }
    }
    VipsImage* image = vips_image_new_from_memory_copy(rgb.data(), rgb.size(), width, height, 3, VIPS_FORMAT_UCHAR);
    if (image == nullptr) {
        throw vips::VError();
    }
    return vips::VImage(image);
}

Result render_pdf_unchecked(std::span<const unsigned char> bytes, const Options& options) {
    if (bytes.empty()) {
        return failure(core::ErrorCode::corrupt_file, "The PDF file is empty.");
    }
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        return failure(core::ErrorCode::corrupt_file, "The PDF is larger than Poppler can read from memory (2 GiB).");
    }
    std::unique_ptr<poppler::document> document(poppler::document::load_from_raw_data(
        reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size())));
    if (!document) {
        return failure(core::ErrorCode::corrupt_file, "Poppler could not open the PDF.");
    }
    if (document->is_locked()) {
        return failure(core::ErrorCode::encrypted_pdf, "The PDF is encrypted and needs a password.");
    }
    if (document->pages() < 1) {
        return failure(core::ErrorCode::corrupt_file, "The PDF has no pages.");
    }
    std::unique_ptr<poppler::page> page(document->create_page(0));
    if (!page) {
        return failure(core::ErrorCode::corrupt_file, "Poppler could not read the first page of the PDF.");
    }
    const poppler::rectf box = page->page_rect(poppler::crop_box);
    const double long_side = std::max(box.width(), box.height());
    if (!std::isfinite(long_side) || long_side <= 0 || std::min(box.width(), box.height()) <= 0) {
        return failure(core::ErrorCode::corrupt_file, "The first page of the PDF has no size.");
    }
    // The page at 72 dpi is its natural size: render it to fit the largest box directly
    // (cheap), never above 72 dpi, so a small page is not upscaled.
    const double dpi = 72.0 * std::min(1.0, k_largest / long_side);
    const double expected_pixels = (box.width() * dpi / 72.0 + 1) * (box.height() * dpi / 72.0 + 1);
    if (expected_pixels > static_cast<double>(options.max_pixels)) {
        return failure(core::ErrorCode::too_many_pixels,
                       "The first page of the PDF would render above the pixel limit.");
    }
    if (expired(options)) {
        return timed_out();
    }
    poppler::page_renderer renderer;
    renderer.set_render_hints(poppler::page_renderer::antialiasing | poppler::page_renderer::text_antialiasing);
    renderer.set_image_format(poppler::image::format_argb32);
    const poppler::image rendered = renderer.render_page(page.get(), dpi, dpi);
    if (!rendered.is_valid() || rendered.width() < 1 || rendered.height() < 1 ||
        rendered.format() != poppler::image::format_argb32) {
        return failure(core::ErrorCode::corrupt_file, "Poppler could not render the first page of the PDF.");
    }
    if (expired(options)) {
        return timed_out();
    }
    return encode_sizes(wrap_rendering(rendered), false, options);
}

template <typename Render>
Result guarded(Render&& render, std::span<const unsigned char> bytes, const Options& options, const char* what) {
    try {
        Result result = render(bytes, options);
        // Loaders also leave warnings there on success (libjpeg's "corrupt data").
        vips_error_clear();
        return result;
    } catch (const vips::VError& error) {
        std::string message = vips_message(error);
        if (expired(options)) {
            return timed_out();
        }
        if (extractors::is_out_of_memory_message(message)) {
            const auto e = extractors::memory_limit_error(what, message);
            return failure(e.code, e.message);
        }
        return failure(core::ErrorCode::corrupt_file,
                       std::string("The ") + what + " could not be read: " + message + ".");
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& error) {
        vips_error_clear();
        return failure(core::ErrorCode::corrupt_file,
                       std::string("The ") + what + " could not be read: " + error.what() + ".");
    }
}

} // namespace

void init() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (VIPS_INIT("ingestd") != 0) {
            std::string message = vips_error_buffer();
            vips_error_clear();
            throw std::runtime_error("libvips failed to start: " + message);
        }
        vips_block_untrusted_set(TRUE);
        vips_operation_block_set("VipsForeignLoad", TRUE);
        for (const char* loader : k_allowed_loaders) {
            vips_operation_block_set(loader, FALSE);
        }
        // Every file is new: a cache only holds memory and references to borrowed bytes.
        vips_cache_set_max(0);
        vips_cache_set_max_mem(0);
        // Parallelism comes from parallel jobs, not from threads inside one thumbnail.
        vips_concurrency_set(1);
        // Per-file warnings (truncated data...) would otherwise go to stderr unstructured.
        g_log_set_handler("VIPS", static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE), silence_glib,
                          nullptr);
        poppler::set_debug_error_function(silence_poppler, nullptr);
    });
}

void thread_shutdown() {
    vips_thread_shutdown();
}

bool is_supported_image(const std::string& mime) {
    static constexpr const char* k_types[] = {
        "image/jpeg", "image/png",  "image/gif",           "image/webp",          "image/tiff",
        "image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence", "image/avif",
    };
    return std::any_of(std::begin(k_types), std::end(k_types), [&](const char* type) { return mime == type; });
}

Result render_image(std::span<const unsigned char> bytes, const Options& options) {
    if (expired(options)) {
        return timed_out();
    }
    return guarded(render_image_unchecked, bytes, options, "image");
}

Result render_pdf(std::span<const unsigned char> bytes, const Options& options) {
    if (expired(options)) {
        return timed_out();
    }
    return guarded(render_pdf_unchecked, bytes, options, "PDF");
}

std::string tiny_pdf() {
    const std::string content = "BT /F1 24 Tf 20 40 Td (Warm up 123) Tj ET";
    const std::vector<std::string> objects = {
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Font << /F1 4 0 R >> >> "
        "/Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
    };
    std::string pdf = "%PDF-1.4\n";
    std::vector<std::size_t> offsets;
    for (std::size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const std::size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (std::size_t offset : offsets) {
        char line[24];
        std::snprintf(line, sizeof line, "%010zu 00000 n \n", offset);
        pdf += line;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    return pdf;
}

void warm_up() {
    try {
        init();
        const std::string pdf = tiny_pdf();
        const auto pdf_bytes = std::span(reinterpret_cast<const unsigned char*>(pdf.data()), pdf.size());
        render_pdf(pdf_bytes, Options{});
        // A small gradient with alpha in each format we read (what the savers of this
        // libvips can write), through the same path as an upload.
        vips::VImage grey = vips::VImage::xyz(32, 24)[0].cast(VIPS_FORMAT_UCHAR);
        vips::VImage rgba = grey.bandjoin({grey, grey, grey})
                                .copy(vips::VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
        vips::VImage rgb = rgba.extract_band(0, vips::VImage::option()->set("n", 3));
        const std::pair<const char*, const vips::VImage*> formats[] = {
            {".jpg", &rgb}, {".png", &rgba}, {".webp", &rgba}, {".gif", &rgb}, {".tif", &rgb}};
        for (const auto& [suffix, image] : formats) {
            try {
                void* buffer = nullptr;
                std::size_t length = 0;
                image->write_to_buffer(suffix, &buffer, &length);
                const std::string bytes(static_cast<const char*>(buffer), length);
                g_free(buffer);
                render_image(std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()), Options{});
            } catch (const std::exception&) {
                vips_error_clear(); // a saver this libvips lacks: that loader stays cold
            }
        }
    } catch (const std::exception&) {
        vips_error_clear();
    }
}

} // namespace thumbnails

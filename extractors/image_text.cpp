#include "extractors/image_text.hpp"

#include "extractors/image_header.hpp"
#include "extractors/ocr_engine.hpp"
#include "extractors/page_threads.hpp"
#include "extractors/photo_check.hpp"
#include "extractors/text_clean.hpp"
#include "extractors/vips_error.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>
#include <vips/vips8>

#include <leptonica/allheaders.h>

namespace extractors {

namespace {

// Rasters above this are scaled down before OCR: Tesseract needs several times the raster
// in working memory and cannot take a side above 32767 px; 40 MP is a 600-dpi A4 page.
constexpr double k_max_ocr_pixels = 40e6;
constexpr int k_max_ocr_side = 30000;

// How one image type is decoded: the libvips loader (nullptr: Leptonica, for BMP, which
// libvips reads only through ImageMagick, and that stays blocked), whether the loader takes
// a page number, and whether every page is read (TIFF) or the first only (HEIF).
struct Decoder {
    const char* loader = nullptr;
    bool paged = false;
    bool every_page = false;
};

// The decoder of `mime`, or nullopt for a type we do not OCR.
std::optional<Decoder> decoder_for(const std::string& mime) {
    static const std::pair<const char*, Decoder> k_types[] = {
        {"image/jpeg", {"jpegload_buffer"}},
        {"image/png", {"pngload_buffer"}},
        {"image/gif", {"gifload_buffer"}},
        {"image/webp", {"webpload_buffer"}},
        {"image/tiff", {"tiffload_buffer", true, true}},
        {"image/heic", {"heifload_buffer", true}},
        {"image/heif", {"heifload_buffer", true}},
        {"image/avif", {"heifload_buffer", true}},
        {"image/heic-sequence", {"heifload_buffer", true}},
        {"image/heif-sequence", {"heifload_buffer", true}},
        {"image/bmp", {}},
        {"image/x-ms-bmp", {}},
    };
    for (const auto& [name, decoder] : k_types) {
        if (mime == name) return decoder;
    }
    return std::nullopt;
}

bool vips_ready() {
    // vips_init is idempotent; the loader block list is thumbnails::init()'s business.
    static const bool ok = VIPS_INIT("ingestd") == 0;
    return ok;
}

// True when this libvips has the loader (HEIF support is optional in libvips builds).
bool has_loader(const Decoder& decoder) {
    return decoder.loader != nullptr && vips_ready() && vips_type_find("VipsOperation", decoder.loader) != 0;
}

void quiet_leptonica() {
    static std::once_flag once;
    std::call_once(once, [] { setMsgSeverity(L_SEVERITY_NONE); });
}

struct BlobDeleter {
    void operator()(VipsBlob* blob) const { vips_area_unref(reinterpret_cast<VipsArea*>(blob)); }
};
using Blob = std::unique_ptr<VipsBlob, BlobDeleter>;

vips::VImage load(const Decoder& decoder, VipsBlob* blob, int page) {
    // Sequential: the pixels are read once, top to bottom, into a grey raster.
    vips::VImage out;
    vips::VOption* options = vips::VImage::option()->set("access", VIPS_ACCESS_SEQUENTIAL);
    if (decoder.paged) options->set("page", page);
    vips::VImage::call(decoder.loader, options->set("buffer", blob)->set("out", &out));
    return out;
}

// The resolution to give Tesseract, 0 to let it estimate one from the text size (as the
// tesseract CLI does for a file that states none). libvips reports 1 px/mm for a TIFF and
// 72 dpi for a PNG or JPEG without a resolution, and 72 dpi is also what software writes
// when it does not know: taken at its word on a page-sized scan (2550 px at 72 dpi is a
// 35-inch page) it makes Tesseract's layout analysis slower (~10 % on such a page).
int dpi_of(double pixels_per_mm, int width, int height) {
    const double dpi = pixels_per_mm * 25.4;
    if (dpi < 70 || dpi > 2400) {
        return 0;
    }
    const bool placeholder = std::abs(dpi - 72.0) < 0.5;
    const double long_side_in = std::max(width, height) / dpi;
    if (placeholder && long_side_in > 22.0) {
        return 0;
    }
    return static_cast<int>(std::lround(dpi));
}

// Decodes one page to an in-memory 8-bit raster as the tesseract CLI hands a file to
// Tesseract (Leptonica reads it, 16-bit samples cut to 8, transparency put on white): RGB
// for a colour image, so that Tesseract thresholds each channel itself (coloured text on a
// coloured background keeps the contrast that a grey conversion loses), grey for a grey
// one and with `grey` (a page in colour without colour: a third of the OCR time saved);
// upright (EXIF orientation applied) and scaled down past `max_pixels`.
vips::VImage decode_raster(vips::VImage image, double max_pixels, int& dpi, bool grey = false) {
    dpi = dpi_of(image.xres(), image.width(), image.height());
    const bool has_orientation = image.get_typeof(VIPS_META_ORIENTATION) != 0;
    const bool colour = !grey && image.bands() - (image.has_alpha() ? 1 : 0) >= 3; // RGB, CMYK, Lab...
    const VipsInterpretation space = colour ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    if (image.interpretation() != space || image.format() != VIPS_FORMAT_UCHAR) {
        image = image.colourspace(space);
    }
    if (image.format() != VIPS_FORMAT_UCHAR) {
        image = image.colourspace(space); // GREY16 -> B_W, RGB16 -> sRGB
    }
    if (image.has_alpha()) {
        image = image.flatten(vips::VImage::option()->set("background", std::vector<double>(colour ? 3 : 1, 255.0)));
    }
    const int bands = colour ? 3 : 1;
    if (image.bands() > bands) {
        image = image.extract_band(0, vips::VImage::option()->set("n", bands));
    }
    if (image.format() != VIPS_FORMAT_UCHAR) {
        image = image.cast(VIPS_FORMAT_UCHAR);
    }
    const double pixels = double(image.width()) * double(image.height());
    double scale = 1.0;
    if (pixels > max_pixels) {
        scale = std::sqrt(max_pixels / pixels);
    }
    scale = std::min(scale, double(k_max_ocr_side) / double(std::max(image.width(), image.height())));
    if (scale < 1.0) {
        image = image.resize(scale);
        dpi = dpi > 0 ? static_cast<int>(dpi * scale) : 0;
        if (dpi < 70) {
            dpi = 0;
        }
    }
    // One pass through the decoder into memory; rotating that copy is then cheap.
    image = image.copy_memory();
    if (has_orientation) {
        image = image.autorot().copy_memory();
    }
    return image;
}

struct Collected {
    std::string text;
    long long confidence_sum = 0;
    long long words = 0;
    int pages = 0;
};

void add_page(Collected& c, OcrPage&& page) {
    if (c.pages > 0) {
        c.text += '\f';
    }
    c.text += page.text;
    c.confidence_sum += page.confidence_sum;
    c.words += page.words;
    ++c.pages;
}

TextResult finish(Collected&& c, TextResult result) {
    result.text = clean_text(c.text);
    result.method = "ocr";
    result.ocr_pages = c.pages;
    result.ocr_confidence = c.words > 0 ? double(c.confidence_sum) / double(c.words) : 0.0;
    return result;
}

// BMP: libvips reads it only through ImageMagick, which stays blocked; Leptonica decodes it.
TextResult extract_bmp_text(std::span<const unsigned char> bytes, const TextOptions& options) {
    TextResult result;
    quiet_leptonica();
    l_int32 format = 0, w = 0, h = 0, bps = 0, spp = 0, cmap = 0;
    if (pixReadHeaderMem(bytes.data(), bytes.size(), &format, &w, &h, &bps, &spp, &cmap) != 0 || w <= 0 || h <= 0) {
        result.error =
            StepError{core::ErrorCode::corrupt_file, "The BMP image is damaged and its header cannot be read."};
        return result;
    }
    if (std::uint64_t(w) * std::uint64_t(h) > options.max_pixels) {
        result.error = too_many_pixels_failure(std::uint64_t(w), std::uint64_t(h), options.max_pixels);
        return result;
    }
    struct PixDeleter {
        void operator()(PIX* p) const { pixDestroy(&p); }
    };
    using Pix = std::unique_ptr<PIX, PixDeleter>;
    Pix pix(pixReadMem(bytes.data(), bytes.size()));
    if (!pix) {
        result.error =
            StepError{core::ErrorCode::corrupt_file, "The BMP image is damaged and its pixels cannot be decoded."};
        return result;
    }
    Pix grey(pixConvertTo8(pix.get(), 0));
    pix.reset();
    // Leptonica keeps 8-bit pixels in native-endian 32-bit words; swap them into byte order.
    Pix bytes_order(grey ? pixEndianByteSwapNew(grey.get()) : nullptr);
    if (!bytes_order) {
        result.error = StepError{core::ErrorCode::corrupt_file, "The BMP image cannot be converted to grey."};
        return result;
    }
    grey.reset();
    const l_int32 xres = pixGetXRes(bytes_order.get());
    const GreyImage image{reinterpret_cast<const unsigned char*>(pixGetData(bytes_order.get())),
                          static_cast<int>(pixGetWidth(bytes_order.get())),
                          static_cast<int>(pixGetHeight(bytes_order.get())),
                          static_cast<int>(pixGetWpl(bytes_order.get()) * 4), xres >= 70 && xres <= 2400 ? xres : 0};
    Collected c;
    OcrPage page = ocr_page(image, options.ocr_langs, options.deadline);
    const bool timed_out = page.timed_out && std::chrono::steady_clock::now() >= options.deadline;
    add_page(c, std::move(page));
    if (timed_out) {
        result.error = StepError{core::ErrorCode::timeout, "The job's time ran out while OCR read the image."};
    }
    return finish(std::move(c), std::move(result));
}

// One page of an image to read: its header (pixels not decoded yet), its number, and the
// whole file's bytes (for the reduced look at a photo).
struct PageSource {
    const vips::VImage& image;
    int page = 0;
    VipsBlob* blob = nullptr;
    bool single = true; // the file's only page (not a TIFF's)
};

// What reading one page gave: its text (none for a photo without text: no OCR'd page), the
// failure that ends the reading there, or the decoder's exception (vips::VError).
struct PageOutcome {
    std::optional<OcrPage> text;
    std::optional<StepError> error;
    std::exception_ptr decode_error;
};

// OCR of one decoded page. A photo whose reduced copy shows no text is not read at full
// resolution. Throws vips::VError when the page cannot be decoded.
PageOutcome read_page(const PageSource& source, const TextOptions& options) {
    const vips::VImage& image = source.image;
    const int page = source.page;
    const std::uint64_t w = std::uint64_t(std::max(image.width(), 0));
    const std::uint64_t h = std::uint64_t(std::max(image.height(), 0));
    PageOutcome out;
    if (w * h > options.max_pixels) {
        out.error = too_many_pixels_failure(w, h, options.max_pixels);
        return out;
    }
    const std::optional<PhotoLook> look =
        source.single && is_photo(image) ? std::optional(look_at_photo(source.blob, options)) : std::nullopt;
    if (look == PhotoLook::no_text) {
        return out;
    }
    const bool photo = look == PhotoLook::text;
    int dpi = 0;
    const vips::VImage raster =
        decode_raster(image, photo ? k_max_photo_ocr_pixels : k_max_ocr_pixels, dpi, look == PhotoLook::paper);
    const GreyImage view{static_cast<const unsigned char*>(raster.data()),
                         raster.width(),
                         raster.height(),
                         static_cast<int>(VIPS_IMAGE_SIZEOF_LINE(raster.get_image())),
                         dpi,
                         raster.bands()};
    out.text = ocr_page(view, options.ocr_langs, options.deadline);
    if (out.text->timed_out && std::chrono::steady_clock::now() >= options.deadline) {
        out.error = StepError{core::ErrorCode::timeout,
                              "The job's time ran out while OCR read image page " + std::to_string(page + 1) + "."};
    }
    return out;
}

// OCR of the pages of an image into `c`: every page of a TIFF up to max_ocr_pages, by
// several threads when the job may use them (as a PDF's pages), put back in page order up to
// the first page that failed. Throws vips::VError when a page cannot be decoded.
void read_pages(const Decoder& decoder, VipsBlob* blob, const TextOptions& options, TextResult& result, Collected& c) {
    const vips::VImage first = load(decoder, blob, 0); // header only so far
    int page_count = 1;
    if (decoder.every_page && first.get_typeof(VIPS_META_N_PAGES) != 0) {
        page_count = std::max(1, first.get_int(VIPS_META_N_PAGES));
        result.page_count = page_count;
    }
    const std::size_t count = std::size_t(std::clamp(options.max_ocr_pages, 0, page_count));
    std::vector<PageOutcome> outcomes(count);
    read_in_threads(count, options.ocr_threads, [&](bool) -> PageReader {
        return [&](std::size_t k) {
            PageOutcome& out = outcomes[k];
            if (std::chrono::steady_clock::now() >= options.deadline) {
                out.error = StepError{core::ErrorCode::timeout,
                                      "The job's time ran out after " + std::to_string(k) + " image pages."};
                return false;
            }
            try {
                const int page = static_cast<int>(k);
                out = read_page(
                    PageSource{page == 0 ? first : load(decoder, blob, page), page, blob, !decoder.every_page},
                    options);
            } catch (const vips::VError&) {
                out.decode_error = std::current_exception();
            }
            return !out.error && !out.decode_error;
        };
    });
    for (PageOutcome& out : outcomes) {
        if (out.decode_error) std::rethrow_exception(out.decode_error);
        if (out.text) add_page(c, std::move(*out.text));
        if (out.error) {
            result.error = std::move(out.error);
            break;
        }
    }
}

// Why libvips could not decode the image, whose library text is `detail` (for the log).
StepError decode_failure(std::span<const unsigned char> bytes, const std::string& detail) {
    if (is_out_of_memory_message(detail)) {
        return memory_limit_error("image", detail);
    }
    if (auto variant = tiff_variant_failure(bytes)) {
        variant->detail = detail;
        return *variant;
    }
    return StepError{core::ErrorCode::corrupt_file, "The image is damaged and cannot be decoded.", detail};
}

} // namespace

bool is_ocr_image(const std::string& mime) {
    const std::optional<Decoder> decoder = decoder_for(mime);
    return decoder && (decoder->loader == nullptr || has_loader(*decoder));
}

TextResult extract_image_text(std::span<const unsigned char> bytes, const std::string& mime,
                              const TextOptions& options) {
    TextResult result;
    const std::optional<Decoder> decoder = decoder_for(mime);
    if (decoder && decoder->loader == nullptr) {
        return extract_bmp_text(bytes, options);
    }
    if (!decoder || !has_loader(*decoder)) {
        result.error =
            StepError{core::ErrorCode::unsupported_format, "This build cannot decode images of type " + mime + "."};
        return result;
    }
    if (auto too_big = heif_size_failure(bytes, options.max_pixels)) {
        result.error = std::move(too_big); // before libheif refuses it with its own words
        return result;
    }
    // The blob borrows the caller's bytes; libvips never frees them.
    const Blob blob(vips_blob_new(nullptr, bytes.data(), bytes.size()));
    Collected c;
    try {
        read_pages(*decoder, blob.get(), options, result, c);
        // Loaders leave warnings there on success too (the HEIF source's "bad seek"): the
        // buffer is per process, and the next file must not inherit them.
        vips_error_clear();
    } catch (const vips::VError& e) {
        result.error = decode_failure(bytes, vips_error_line(e));
    }
    if (result.page_count && c.pages < *result.page_count) {
        result.pages_read = c.pages;
    }
    if (c.pages == 0 && result.error) {
        return result; // nothing was read: no method, no OCR figures
    }
    return finish(std::move(c), std::move(result));
}

} // namespace extractors

#include "thumbnails/pdf_thumbnail.hpp"

#include "extractors/page_share.hpp"
#include "extractors/pdf_pixels.hpp"
#include "thumbnails/render_guard.hpp"
#include "thumbnails/webp_encoder.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>
#include <vips/vips8>

#include <poppler-document.h>
#include <poppler-image.h>
#include <poppler-page-renderer.h>
#include <poppler-page.h>

namespace thumbnails {

namespace {

// A drawn page as a libvips image (page 1 as OCR drew it earlier in this job, or drawn here).
vips::VImage wrap_drawing(const extractors::PageDrawing& drawn) {
    VipsImage* image = vips_image_new_from_memory_copy(drawn.rgb.data(), drawn.rgb.size(), drawn.width, drawn.height, 3,
                                                       VIPS_FORMAT_UCHAR);
    if (image == nullptr) {
        throw vips::VError();
    }
    return vips::VImage(image);
}

// Poppler's ARGB32 on a white paper is opaque: keep RGB only.
vips::VImage wrap_rendering(const poppler::image& rendered) {
    return wrap_drawing(extractors::drawing_of_argb(rendered.const_data(), rendered.width(), rendered.height(),
                                                    rendered.bytes_per_row()));
}

// The first page of the document, or nullptr with the failure in `refused`.
std::unique_ptr<poppler::page> first_page(poppler::document* document, Result& refused) {
    if (!document) {
        refused = failure(core::ErrorCode::corrupt_file, "Poppler could not open the PDF.");
        return nullptr;
    }
    if (document->is_locked()) {
        refused = failure(core::ErrorCode::encrypted_pdf, "The PDF is encrypted and needs a password.");
        return nullptr;
    }
    if (document->pages() < 1) {
        refused = failure(core::ErrorCode::corrupt_file, "The PDF has no pages.");
        return nullptr;
    }
    std::unique_ptr<poppler::page> page(document->create_page(0));
    if (!page) {
        refused = failure(core::ErrorCode::corrupt_file, "Poppler could not read the first page of the PDF.");
    }
    return page;
}

// Draws `page` at `dpi` in ARGB32; an invalid image when Poppler cannot.
poppler::image draw(const poppler::page& page, double dpi) {
    poppler::page_renderer renderer;
    renderer.set_render_hints(poppler::page_renderer::antialiasing | poppler::page_renderer::text_antialiasing);
    renderer.set_image_format(poppler::image::format_argb32);
    return renderer.render_page(&page, dpi, dpi);
}

Result render_pdf_unchecked(std::span<const unsigned char> bytes, const Options& options) {
    if (bytes.empty()) {
        return failure(core::ErrorCode::corrupt_file, "The PDF file is empty.");
    }
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        return failure(core::ErrorCode::corrupt_file, "The PDF is larger than Poppler can read from memory (2 GiB).");
    }
    if (const std::optional<extractors::PageDrawing> drawn = extractors::take_first_page()) {
        return encode_sizes(wrap_drawing(*drawn), false, options); // OCR drew it: not again
    }
    const std::unique_ptr<poppler::document> document(poppler::document::load_from_raw_data(
        reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size())));
    Result refused;
    const std::unique_ptr<poppler::page> page = first_page(document.get(), refused);
    if (!page) {
        return refused;
    }
    const poppler::rectf box = page->page_rect(poppler::crop_box);
    const double long_side = std::max(box.width(), box.height());
    if (!std::isfinite(long_side) || long_side <= 0 || std::min(box.width(), box.height()) <= 0) {
        return failure(core::ErrorCode::corrupt_file, "The first page of the PDF has no size.");
    }
    // The page at 72 dpi is its natural size: render it to fit the largest box directly
    // (cheap), never above 72 dpi, so a small page is not upscaled.
    const double dpi = 72.0 * std::min(1.0, k_largest_size / long_side);
    const double expected_pixels = (box.width() * dpi / 72.0 + 1) * (box.height() * dpi / 72.0 + 1);
    if (expected_pixels > static_cast<double>(options.max_pixels)) {
        return failure(core::ErrorCode::too_many_pixels,
                       "The first page of the PDF would render above the pixel limit.");
    }
    // Poppler decodes every image whole whatever the DPI: the images are counted first.
    extractors::PdfPixelBudget budget(bytes);
    if (auto refused = budget.check_page(0, options.max_pixels, options.deadline, "The first page of the PDF")) {
        return failure(refused->code, std::move(refused->message));
    }
    if (expired(options)) {
        return timed_out();
    }
    const poppler::image rendered = draw(*page, dpi);
    if (!rendered.is_valid() || rendered.width() < 1 || rendered.height() < 1 ||
        rendered.format() != poppler::image::format_argb32) {
        return failure(core::ErrorCode::corrupt_file, "Poppler could not render the first page of the PDF.");
    }
    if (expired(options)) {
        return timed_out();
    }
    return encode_sizes(wrap_rendering(rendered), false, options);
}

} // namespace

Result render_pdf(std::span<const unsigned char> bytes, const Options& options) {
    return guarded(render_pdf_unchecked, bytes, options, "PDF");
}

} // namespace thumbnails

#include "extractors/pdf_ocr.hpp"

#include "extractors/page_share.hpp"
#include "extractors/page_threads.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <optional>

#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>

namespace extractors {

namespace {

constexpr double k_ocr_dpi = 300.0;

// A rendered page above this is drawn at a lower resolution: 40 MP is an A3 sheet at 300 dpi
// (or A4 at ~450 dpi), and Tesseract needs several times the raster in working memory.
constexpr double k_max_ocr_page_pixels = 40e6;

// Renders `page` in `format` (8-bit grey, or ARGB32 for a page shared with the thumbnailer)
// at 300 dpi, or lower when that would exceed `max_pixels`.
poppler::image render_for_ocr(const poppler::page& page, std::uint64_t max_pixels, poppler::image::format_enum format,
                              int& dpi_out) {
    const poppler::rectf box = page.page_rect(poppler::crop_box);
    const double w_in = std::abs(box.width()) / 72.0;
    const double h_in = std::abs(box.height()) / 72.0;
    if (!(w_in > 0) || !(h_in > 0)) {
        return {};
    }
    const double cap = std::min(k_max_ocr_page_pixels, static_cast<double>(max_pixels));
    double dpi = k_ocr_dpi;
    const double pixels = w_in * h_in * dpi * dpi;
    if (pixels > cap) {
        dpi = std::floor(dpi * std::sqrt(cap / pixels));
    }
    if (dpi < 1 || w_in * dpi > INT_MAX / 2 || h_in * dpi > INT_MAX / 2) {
        return {};
    }
    poppler::page_renderer renderer;
    renderer.set_image_format(format);
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
    dpi_out = static_cast<int>(dpi);
    return renderer.render_page(&page, dpi, dpi);
}

// The grey image OCR reads of `raster` (8-bit grey as rendered, or a grey copy of an ARGB32
// page made into `copy` while the page's colour drawing is kept for the thumbnailer).
std::optional<GreyImage> grey_for_ocr(const poppler::image& raster, int dpi, std::vector<unsigned char>& copy) {
    if (!raster.is_valid() || raster.width() < 1 || raster.height() < 1) return std::nullopt;
    if (raster.format() == poppler::image::format_gray8) {
        return GreyImage{reinterpret_cast<const unsigned char*>(raster.const_data()), raster.width(), raster.height(),
                         raster.bytes_per_row(), dpi};
    }
    if (raster.format() != poppler::image::format_argb32) return std::nullopt;
    const int width = raster.width(), height = raster.height();
    PageDrawing drawing = drawing_of_argb(raster.const_data(), width, height, raster.bytes_per_row(), &copy);
    keep_first_page(std::move(drawing));
    return GreyImage{copy.data(), width, height, width, dpi};
}

} // namespace

OcrPage ocr_pdf_page(const poppler::page& page, bool first, const TextOptions& options) {
    int dpi = 0;
    const bool share = first && first_page_shared();
    const poppler::image raster = render_for_ocr(
        page, options.max_pixels, share ? poppler::image::format_argb32 : poppler::image::format_gray8, dpi);
    std::vector<unsigned char> copy;
    const std::optional<GreyImage> grey = grey_for_ocr(raster, dpi, copy);
    if (!grey) return {};
    return ocr_page(*grey, options.ocr_langs, options.deadline);
}

std::vector<OcrPage> ocr_pdf_pages(poppler::document& doc, std::span<const unsigned char> bytes,
                                   const std::vector<int>& pages, int threads, const TextOptions& options) {
    std::vector<OcrPage> results(pages.size());
    // This thread reads over `doc` (and draws page 1 for its thumbnailer when shared); each
    // other over a document of its own on the same bytes (a poppler document is not
    // thread-safe); one that cannot open it reads nothing and leaves the pages to the others.
    read_in_threads(pages.size(), threads, [&](bool caller) -> PageReader {
        std::shared_ptr<poppler::document> own;
        if (!caller) {
            own.reset(poppler::document::load_from_raw_data(reinterpret_cast<const char*>(bytes.data()),
                                                            static_cast<int>(bytes.size())));
            if (!own || own->is_locked()) return {};
        }
        return [&, caller, own](std::size_t k) {
            poppler::document& over = caller ? doc : *own;
            const std::unique_ptr<poppler::page> page(over.create_page(pages[k]));
            if (page) results[k] = ocr_pdf_page(*page, pages[k] == 0 && caller, options);
            return true;
        };
    });
    return results;
}

} // namespace extractors

#include "extractors/pdf_ocr.hpp"

#include "extractors/page_share.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

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

// The pages still to read, handed out in order to whichever thread asks first.
class PageQueue {
public:
    PageQueue(poppler::document& doc, std::span<const unsigned char> bytes, const std::vector<int>& pages,
              const TextOptions& options)
        : m_doc(doc), m_bytes(bytes), m_pages(pages), m_options(options), m_results(pages.size()) {}

    // Reads pages over `doc` until none is left or a thread failed. The calling thread's
    // share (over the caller's `doc`) starts with the first page, kept for it: page 1's
    // drawing is shared through that thread's slot.
    void work(poppler::document& doc) {
        const bool caller = &doc == &m_doc;
        try {
            for (std::size_t k = caller ? 0 : m_next++; k < m_pages.size() && !m_failed; k = m_next++) {
                const std::unique_ptr<poppler::page> page(doc.create_page(m_pages[k]));
                if (page) m_results[k] = ocr_pdf_page(*page, m_pages[k] == 0 && caller, m_options);
            }
        } catch (...) {
            std::lock_guard lock(m_mutex);
            if (!m_error) m_error = std::current_exception();
            m_failed = true;
        }
    }

    // Another thread's share: its own document on the same bytes (none: the others read on).
    void work_on_own_document() {
        const std::unique_ptr<poppler::document> own(poppler::document::load_from_raw_data(
            reinterpret_cast<const char*>(m_bytes.data()), static_cast<int>(m_bytes.size())));
        if (own && !own->is_locked()) work(*own);
    }

    std::vector<OcrPage> results() {
        if (m_error) std::rethrow_exception(m_error);
        return std::move(m_results);
    }

private:
    poppler::document& m_doc;
    std::span<const unsigned char> m_bytes;
    const std::vector<int>& m_pages;
    const TextOptions& m_options;
    std::vector<OcrPage> m_results;
    std::atomic<std::size_t> m_next{1}; // the first page is the calling thread's
    std::atomic<bool> m_failed{false};
    std::mutex m_mutex;
    std::exception_ptr m_error;
};

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
    PageQueue queue(doc, bytes, pages, options);
    const int others = std::clamp(std::min(threads, k_max_ocr_threads), 1, std::max<int>(1, int(pages.size()))) - 1;
    std::vector<std::thread> helpers;
    for (int t = 0; t < others; ++t) helpers.emplace_back([&queue] { queue.work_on_own_document(); });
    queue.work(doc);
    for (auto& t : helpers) t.join();
    return queue.results();
}

} // namespace extractors

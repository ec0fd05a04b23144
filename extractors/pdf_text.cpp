#include "extractors/pdf_text.hpp"

#include "extractors/ocr_engine.hpp"
#include "extractors/page_share.hpp"
#include "extractors/pdf_layers.hpp"
#include "extractors/pdf_pixels.hpp"
#include "extractors/text_clean.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>

namespace extractors {

namespace {

constexpr double k_ocr_dpi = 300.0;

// A rendered page above this is drawn at a lower resolution: 40 MP is an A3 sheet at 300 dpi
// (or A4 at ~450 dpi), and Tesseract needs several times the raster in working memory.
constexpr double k_max_ocr_page_pixels = 40e6;

void quiet_poppler() {
    // Poppler reports every syntax problem of a damaged file on stderr; the outcome is in
    // the result instead.
    static std::once_flag once;
    std::call_once(once, [] { poppler::set_debug_error_function([](const std::string&, void*) {}, nullptr); });
}

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

bool expired(std::chrono::steady_clock::time_point deadline) {
    return std::chrono::steady_clock::now() >= deadline;
}

StepError failure(core::ErrorCode code, std::string message) {
    return StepError{code, std::move(message)};
}

// The document of `bytes`, or nullptr with the reason in `error`. Poppler reads straight from
// the caller's bytes (no copy): they outlive the document.
std::unique_ptr<poppler::document> open_document(std::span<const unsigned char> bytes,
                                                 std::optional<StepError>& error) {
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        error = failure(core::ErrorCode::corrupt_file, "The PDF is larger than 2 GiB, more than Poppler can read.");
        return nullptr;
    }
    quiet_poppler();
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_raw_data(
        reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size())));
    if (!doc) {
        error = failure(core::ErrorCode::corrupt_file, "The PDF is damaged or not a PDF: Poppler cannot open it.");
    } else if (doc->is_locked()) {
        // An owner password alone does not lock a PDF: Poppler opens it with the empty user
        // password, and the text is extracted whatever its permission flags say.
        error = failure(core::ErrorCode::encrypted_pdf, "The PDF is encrypted with a user password.");
    } else if (doc->pages() <= 0) {
        error = failure(core::ErrorCode::corrupt_file, "The PDF has no readable pages.");
    } else {
        return doc;
    }
    return nullptr;
}

// One extraction's pages, read in order: text layer, then OCR where the mode asks for it.
class PageReader {
public:
    PageReader(poppler::document& doc, std::span<const unsigned char> bytes, std::vector<LayerPage> layers,
               const TextOptions& options)
        : m_doc(doc), m_bytes(bytes), m_layers(std::move(layers)), m_options(options), m_page_count(doc.pages()) {}

    // Reads page `i` into the text; a failure (the deadline) stops the reading.
    std::optional<StepError> read(int i) {
        if (expired(m_options.deadline) || (!m_layers.empty() && !m_layers[std::size_t(i)].done)) {
            // A page its thread left unread met the deadline too: the same outcome.
            return failure(core::ErrorCode::timeout, "The job's time ran out after " + std::to_string(m_pages_done) +
                                                         " of " + std::to_string(m_page_count) + " PDF pages.");
        }
        std::unique_ptr<poppler::page> page;
        bool exists = false;
        std::string text = layer_of(i, page, exists);
        const bool has_text = has_letter_or_digit(text);
        const OcrMode mode = m_options.ocr_mode;
        const bool want_ocr = exists && m_ocr_pages < m_options.max_ocr_pages &&
                              (mode == OcrMode::force || (mode == OcrMode::automatic && !has_text));
        if (want_ocr && !page) page.reset(m_doc.create_page(i));
        bool timed_out = false;
        if (want_ocr && page && within_budget(i)) {
            timed_out = ocr(*page, i == 0, text);
            m_ocr_text = m_ocr_text || has_letter_or_digit(text);
        } else {
            m_layer_text = m_layer_text || has_text;
        }
        if (i > 0) m_text += '\f';
        m_text += text;
        if (timed_out) {
            // The page's partial text is kept, but it does not count as read.
            return failure(core::ErrorCode::timeout, "The job's time ran out while OCR read page " +
                                                         std::to_string(i + 1) + " of " + std::to_string(m_page_count) +
                                                         ".");
        }
        ++m_pages_done;
        return std::nullopt;
    }

    // The figures of the pages read so far into `result`.
    void finish(TextResult& result) {
        // A page over the pixel budget fails the step, but only after every other page was read.
        if (!result.error) result.error = m_pixel_error;
        result.text = clean_text(m_text);
        result.page_count = m_page_count;
        if (m_pages_done < m_page_count) result.pages_read = m_pages_done;
        if (m_ocr_pages > 0) {
            result.ocr_pages = m_ocr_pages;
            result.ocr_confidence = m_words > 0 ? double(m_confidence_sum) / double(m_words) : 0.0;
        }
        // Where the text came from: `ocr` when only OCR found any (also when nothing was
        // found but OCR ran, as for a PDF of photos), `mixed` when both did.
        if (m_ocr_pages == 0 || (m_layer_text && !m_ocr_text)) {
            result.method = "text_layer";
        } else {
            result.method = m_layer_text ? "mixed" : "ocr";
        }
    }

private:
    // The text layer of page `i`, from the threads' read-ahead or read now (then `page` holds it).
    std::string layer_of(int i, std::unique_ptr<poppler::page>& page, bool& exists) {
        if (!m_layers.empty()) {
            LayerPage& layer = m_layers[std::size_t(i)];
            exists = layer.exists;
            return std::move(layer.text);
        }
        page.reset(m_doc.create_page(i));
        exists = page != nullptr;
        return page ? page_text(*page) : std::string();
    }

    // True when page `i` may be rendered for OCR: its images are within INGEST_MAX_PIXELS.
    // Otherwise the first such page's too_many_pixels is kept for the step, and the page keeps
    // its (empty) text layer. The budget's document is opened for the first page OCR'd.
    bool within_budget(int i) {
        if (!m_budget) m_budget = std::make_unique<PdfPixelBudget>(m_bytes);
        std::optional<StepError> refused =
            m_budget->check_page(i, m_options.max_pixels, m_options.deadline,
                                 "Page " + std::to_string(i + 1) + " of " + std::to_string(m_page_count));
        if (!refused) return true;
        if (!m_pixel_error) m_pixel_error = std::move(refused);
        return false;
    }

    // OCR of `page` into `text`; true when the deadline cut it short. The first page is drawn
    // in colour and kept for the thumbnailer when the job shares it (extractors/page_share.hpp).
    bool ocr(const poppler::page& page, bool first, std::string& text) {
        int dpi = 0;
        const bool share = first && first_page_shared();
        const poppler::image raster = render_for_ocr(
            page, m_options.max_pixels, share ? poppler::image::format_argb32 : poppler::image::format_gray8, dpi);
        ++m_ocr_pages;
        text.clear();
        std::vector<unsigned char> copy;
        const std::optional<GreyImage> grey = grey_for_ocr(raster, dpi, copy);
        if (!grey) return false;
        OcrPage result = ocr_page(*grey, m_options.ocr_langs, m_options.deadline);
        m_confidence_sum += result.confidence_sum;
        m_words += result.words;
        text = std::move(result.text);
        return result.timed_out && expired(m_options.deadline);
    }

    poppler::document& m_doc;
    std::span<const unsigned char> m_bytes;
    std::unique_ptr<PdfPixelBudget> m_budget; // opened for the first page OCR'd
    std::optional<StepError> m_pixel_error;   // the first page over the pixel budget
    std::vector<LayerPage> m_layers;          // read ahead by threads, or empty
    const TextOptions& m_options;
    const int m_page_count;
    std::string m_text;
    int m_pages_done = 0;
    int m_ocr_pages = 0;
    long long m_confidence_sum = 0;
    long long m_words = 0;
    bool m_layer_text = false; // a page kept its text layer, and it has letters or digits
    bool m_ocr_text = false;   // an OCR'd page gave letters or digits
};

} // namespace

TextResult extract_pdf_text(std::span<const unsigned char> bytes, const TextOptions& options) {
    TextResult result;
    const std::unique_ptr<poppler::document> doc = open_document(bytes, result.error);
    if (!doc) return result;
    const int to_read = std::min(doc->pages(), std::max(options.max_pages, 0));
    // With threads, the text layers are read first, in parallel; OCR (and everything else)
    // then follows page by page on this thread, as without.
    const int threads = std::min({options.pdf_threads, k_max_pdf_threads, to_read / k_chunk_pages});
    std::vector<LayerPage> layers;
    if (threads > 1 && to_read >= k_min_pages_for_threads) {
        layers = read_layers(*doc, bytes, to_read, threads, options.deadline);
    }
    PageReader reader(*doc, bytes, std::move(layers), options);
    for (int i = 0; i < to_read && !result.error; ++i) {
        result.error = reader.read(i);
    }
    reader.finish(result);
    return result;
}

} // namespace extractors

#include "extractors/pdf_text.hpp"

#include "extractors/page_threads.hpp"
#include "extractors/pdf_layers.hpp"
#include "extractors/pdf_ocr.hpp"
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
#include <poppler/cpp/poppler-page.h>

namespace extractors {

namespace {

void quiet_poppler() {
    // Poppler reports every syntax problem of a damaged file on stderr; the outcome is in
    // the result instead.
    static std::once_flag once;
    std::call_once(once, [] { poppler::set_debug_error_function([](const std::string&, void*) {}, nullptr); });
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
class PdfPageReader {
public:
    PdfPageReader(poppler::document& doc, std::span<const unsigned char> bytes, std::vector<LayerPage> layers,
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
        const bool read_by_ocr = want_ocr && page && within_budget(i);
        if (read_by_ocr && m_parallel) {
            ++m_ocr_pages; // read with the others by read_ocr_pages()
            m_ocr_jobs.push_back(i);
            text.clear();
        } else if (read_by_ocr) {
            timed_out = ocr(*page, i == 0, text);
            m_ocr_text = m_ocr_text || has_letter_or_digit(text);
        } else {
            m_layer_text = m_layer_text || has_text;
        }
        m_pieces.push_back(std::move(text));
        if (timed_out) {
            // The page's partial text is kept, but it does not count as read.
            return failure(core::ErrorCode::timeout, "The job's time ran out while OCR read page " +
                                                         std::to_string(i + 1) + " of " + std::to_string(m_page_count) +
                                                         ".");
        }
        ++m_pages_done;
        return std::nullopt;
    }

    // With several OCR threads: the pages left for OCR by read(), read now by the threads and
    // put in their places. A page cut short by the deadline ends the reading there, as it does
    // page by page: what follows it is dropped, and its failure returned.
    std::optional<StepError> read_ocr_pages() {
        if (m_ocr_jobs.empty()) return std::nullopt;
        std::vector<OcrPage> pages = ocr_pdf_pages(m_doc, m_bytes, m_ocr_jobs, m_options.ocr_threads, m_options);
        for (std::size_t k = 0; k < pages.size(); ++k) {
            const int i = m_ocr_jobs[k];
            m_confidence_sum += pages[k].confidence_sum;
            m_words += pages[k].words;
            m_pieces[std::size_t(i)] = std::move(pages[k].text);
            m_ocr_text = m_ocr_text || has_letter_or_digit(m_pieces[std::size_t(i)]);
            if (pages[k].timed_out && expired(m_options.deadline)) {
                m_ocr_pages = int(k) + 1;
                m_pages_done = i;
                m_pieces.resize(std::size_t(i) + 1);
                return failure(core::ErrorCode::timeout, "The job's time ran out while OCR read page " +
                                                             std::to_string(i + 1) + " of " +
                                                             std::to_string(m_page_count) + ".");
            }
        }
        return std::nullopt;
    }

    // The figures of the pages read so far into `result`.
    void finish(TextResult& result) {
        // A page over the pixel budget fails the step, but only after every other page was read.
        if (!result.error) result.error = m_pixel_error;
        std::string text;
        for (std::size_t i = 0; i < m_pieces.size(); ++i) {
            if (i > 0) text += '\f';
            text += m_pieces[i];
        }
        result.text = clean_text(text);
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
        ++m_ocr_pages;
        OcrPage result = ocr_pdf_page(page, first, m_options);
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
    // OCR'd pages read together at the end (by threads given or borrowed: page_threads.hpp)
    const bool m_parallel = m_options.ocr_threads > 1 || thread_lender() != nullptr;
    std::vector<std::string> m_pieces; // each page's text, in order
    std::vector<int> m_ocr_jobs;       // pages left for read_ocr_pages()
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
    PdfPageReader reader(*doc, bytes, std::move(layers), options);
    for (int i = 0; i < to_read && !result.error; ++i) {
        result.error = reader.read(i);
    }
    // An OCR'd page before where the reading stopped can only have been cut shorter still.
    if (auto cut = reader.read_ocr_pages()) result.error = std::move(cut);
    reader.finish(result);
    return result;
}

} // namespace extractors

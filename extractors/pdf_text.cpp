#include "extractors/pdf_text.hpp"

#include "extractors/ocr_engine.hpp"
#include "extractors/text_clean.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <glib.h>
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

bool has_letter_or_digit(const std::string& text) {
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        const auto c = static_cast<unsigned char>(*p);
        if (c < 0x80) {
            if (g_ascii_isalnum(static_cast<char>(c))) {
                return true;
            }
            ++p;
            continue;
        }
        const gunichar u = g_utf8_get_char_validated(p, end - p);
        if (u == static_cast<gunichar>(-1) || u == static_cast<gunichar>(-2)) {
            ++p; // not UTF-8 here: skip the byte
            continue;
        }
        if (g_unichar_isalnum(u)) {
            return true;
        }
        p = g_utf8_next_char(p);
    }
    return false;
}

// A page's text layer as UTF-8 without the page's closing form feed. A glyph with no Unicode
// mapping comes out as a C0 or C1 control character (often the font's space glyph): it becomes
// a space, so that the words around it stay apart (clean_text would drop it and glue them).
std::string layer_text(const char* data, std::size_t size) {
    if (size > 0 && data[size - 1] == '\f') {
        --size;
    }
    std::string out;
    out.reserve(size);
    for (std::size_t i = 0; i < size; ++i) {
        const auto c = static_cast<unsigned char>(data[i]);
        if ((c < 0x20 && c != '\n' && c != '\t' && c != '\f' && c != '\r') || c == 0x7F) {
            out += ' ';
        } else if (c == 0xC2 && i + 1 < size && static_cast<unsigned char>(data[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(data[i + 1]) <= 0x9F) {
            out += ' '; // U+0080..U+009F
            ++i;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

bool same_box(const poppler::rectf& a, const poppler::rectf& b) {
    constexpr double eps = 0.01;
    return std::abs(a.left() - b.left()) < eps && std::abs(a.top() - b.top()) < eps &&
           std::abs(a.width() - b.width()) < eps && std::abs(a.height() - b.height()) < eps;
}

// The text of a page in reading order over its whole media box, as pdftotext gives it.
// poppler-cpp reads only the crop box by default, which drops what a printer set outside it
// (crop marks, line numbers); a slice of the media box, in the crop box's rotated device
// space (72 dpi, origin at its top left), brings that text back.
std::string page_text(const poppler::page& page) {
    const poppler::rectf media = page.page_rect(poppler::media_box);
    const poppler::rectf crop = page.page_rect(poppler::crop_box);
    poppler::rectf slice; // empty: the crop box
    if (!same_box(media, crop) && media.width() > 0 && media.height() > 0) {
        // PDF boxes: left/top() are x1/y1 (lower left corner), y grows upwards.
        const double mx1 = media.left(), my1 = media.top();
        const double mx2 = mx1 + media.width(), my2 = my1 + media.height();
        const double cx1 = crop.left(), cy1 = crop.top();
        const double cx2 = cx1 + crop.width(), cy2 = cy1 + crop.height();
        switch (page.orientation()) {
        case poppler::page::landscape: // /Rotate 90
            slice = poppler::rectf(my1 - cy1, mx1 - cx1, media.height(), media.width());
            break;
        case poppler::page::upside_down: // /Rotate 180
            slice = poppler::rectf(cx2 - mx2, my1 - cy1, media.width(), media.height());
            break;
        case poppler::page::seascape: // /Rotate 270
            slice = poppler::rectf(cy2 - my2, cx2 - mx2, media.height(), media.width());
            break;
        default:
            slice = poppler::rectf(mx1 - cx1, cy2 - my2, media.width(), media.height());
            break;
        }
    }
    const poppler::byte_array utf8 = page.text(slice, poppler::page::non_raw_non_physical_layout).to_utf8();
    return layer_text(utf8.data(), utf8.size());
}

// Renders `page` in 8-bit grey at 300 dpi, or lower when that would exceed `max_pixels`.
poppler::image render_grey(const poppler::page& page, std::uint64_t max_pixels, int& dpi_out) {
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
    renderer.set_image_format(poppler::image::format_gray8);
    renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
    renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
    dpi_out = static_cast<int>(dpi);
    return renderer.render_page(&page, dpi, dpi);
}

bool expired(std::chrono::steady_clock::time_point deadline) {
    return std::chrono::steady_clock::now() >= deadline;
}

// Fewer pages than this are read on the calling thread alone: another document costs a
// parse of the file's cross-reference table, more than a few pages of text.
constexpr int k_min_pages_for_threads = 16;
// Pages a thread claims at a time: runs of neighbours keep a document's caches useful, and
// small runs let the threads finish together when pages differ in cost.
constexpr int k_chunk_pages = 8;
// Each thread holds a document and a stack (8 MiB, counted by RLIMIT_DATA in the helper).
constexpr int k_max_pdf_threads = 8;

// One page's text layer as the reading loop needs it.
struct LayerPage {
    std::string text;    // page_text(), empty when the page cannot be created
    bool exists = false; // create_page gave a page
    bool done = false;   // read (its thread found the deadline not yet passed)
};

// The text layers of pages [0, count) read by `threads` threads, each over its own document
// on `bytes` (a poppler document is not thread-safe), the calling thread over `doc`. `doc`
// stays open throughout, so poppler's global parameters (created with the first document,
// under poppler's lock, freed with the last) outlive the other threads' documents. Poppler
// 22.12 also creates a process-wide colour profile, unlocked, in the first GfxState (the first
// page drawn): the calling thread draws a page before it starts any other thread, and reads
// alone when none of its first pages exists. A thread stops at the deadline: pages nobody read
// by then stay not done. A thread that cannot be started or cannot open its document leaves
// its pages to the others. Rethrows the first exception of any thread (std::bad_alloc) after
// all have ended.
std::vector<LayerPage> read_layers(poppler::document& doc, std::span<const unsigned char> bytes, int count, int threads,
                                   std::chrono::steady_clock::time_point deadline) {
    std::vector<LayerPage> pages(static_cast<std::size_t>(count));
    std::atomic<int> next{0};
    std::atomic<bool> stop{false};
    std::mutex failure_mutex;
    std::exception_ptr failure;
    auto fail = [&] {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stop.store(true, std::memory_order_relaxed);
    };
    // Reads pages [first, last) of a claimed run; false when it had to stop.
    auto read_run = [&](poppler::document& d, int first, int last) {
        for (int i = first; i < last; ++i) {
            if (stop.load(std::memory_order_relaxed) || expired(deadline)) {
                stop.store(true, std::memory_order_relaxed);
                return false;
            }
            LayerPage& out = pages[static_cast<std::size_t>(i)];
            const std::unique_ptr<poppler::page> page(d.create_page(i));
            out.exists = page != nullptr;
            if (page) out.text = page_text(*page);
            out.done = true;
        }
        return true;
    };
    auto work = [&](poppler::document& d) {
        for (;;) {
            const int first = next.fetch_add(k_chunk_pages, std::memory_order_relaxed);
            if (first >= count || !read_run(d, first, std::min(count, first + k_chunk_pages))) {
                return;
            }
        }
    };
    // The calling thread's first run, up to the first page that exists.
    const int first_run_end = std::min(count, k_chunk_pages);
    next.store(first_run_end, std::memory_order_relaxed);
    int first_run_at = 0;
    bool drawn = false;
    while (!drawn && first_run_at < first_run_end && read_run(doc, first_run_at, first_run_at + 1)) {
        drawn = pages[static_cast<std::size_t>(first_run_at++)].exists;
    }
    if (stop.load(std::memory_order_relaxed)) return pages; // the deadline
    std::vector<std::thread> pool;
    try {
        if (drawn) pool.reserve(static_cast<std::size_t>(threads - 1));
        for (int t = 1; drawn && t < threads; ++t) {
            pool.emplace_back([&] {
                try {
                    const std::unique_ptr<poppler::document> own(poppler::document::load_from_raw_data(
                        reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size())));
                    if (own && !own->is_locked() && own->pages() == doc.pages()) work(*own);
                } catch (...) {
                    fail();
                }
            });
        }
    } catch (const std::system_error&) {
        // No more threads (EAGAIN): those started and this one read everything.
    } catch (...) {
        fail();
    }
    try {
        if (read_run(doc, first_run_at, first_run_end)) work(doc);
    } catch (...) {
        fail();
    }
    for (std::thread& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    return pages;
}

} // namespace

TextResult extract_pdf_text(std::span<const unsigned char> bytes, const TextOptions& options) {
    TextResult result;
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) {
        result.error =
            StepError{core::ErrorCode::corrupt_file, "The PDF is larger than 2 GiB, more than Poppler can read."};
        return result;
    }
    quiet_poppler();
    // Poppler reads straight from the caller's bytes (no copy); they outlive `doc`.
    const std::unique_ptr<poppler::document> doc(poppler::document::load_from_raw_data(
        reinterpret_cast<const char*>(bytes.data()), static_cast<int>(bytes.size())));
    if (!doc) {
        result.error =
            StepError{core::ErrorCode::corrupt_file, "The PDF is damaged or not a PDF: Poppler cannot open it."};
        return result;
    }
    // An owner password alone does not lock a PDF: Poppler opens it with the empty user
    // password, and the text is extracted whatever its permission flags say.
    if (doc->is_locked()) {
        result.error = StepError{core::ErrorCode::encrypted_pdf, "The PDF is encrypted with a user password."};
        return result;
    }
    const int page_count = doc->pages();
    if (page_count <= 0) {
        result.error = StepError{core::ErrorCode::corrupt_file, "The PDF has no readable pages."};
        return result;
    }
    result.page_count = page_count;

    const int to_read = std::min(page_count, std::max(options.max_pages, 0));
    // With threads, the text layers are read first, in parallel; OCR (and everything else)
    // then follows page by page on this thread, as without.
    const int threads = std::min({options.pdf_threads, k_max_pdf_threads, to_read / k_chunk_pages});
    std::vector<LayerPage> layers;
    if (threads > 1 && to_read >= k_min_pages_for_threads) {
        layers = read_layers(*doc, bytes, to_read, threads, options.deadline);
    }
    std::string text;
    int pages_done = 0;
    int ocr_pages = 0;
    long long confidence_sum = 0;
    long long confidence_words = 0;
    bool layer_text = false; // a page kept its text layer, and it has letters or digits
    bool ocr_text = false;   // an OCR'd page gave letters or digits
    for (int i = 0; i < to_read; ++i) {
        if (expired(options.deadline)) {
            result.error =
                StepError{core::ErrorCode::timeout, "The job's time ran out after " + std::to_string(pages_done) +
                                                        " of " + std::to_string(page_count) + " PDF pages."};
            break;
        }
        std::unique_ptr<poppler::page> page;
        std::string page_str;
        bool page_exists = false;
        if (layers.empty()) {
            page.reset(doc->create_page(i));
            page_exists = page != nullptr;
            page_str = page ? page_text(*page) : std::string();
        } else {
            LayerPage& layer = layers[static_cast<std::size_t>(i)];
            if (!layer.done) {
                // Its thread met the deadline, so the check above would have: the same outcome.
                result.error =
                    StepError{core::ErrorCode::timeout, "The job's time ran out after " + std::to_string(pages_done) +
                                                            " of " + std::to_string(page_count) + " PDF pages."};
                break;
            }
            page_exists = layer.exists;
            page_str = std::move(layer.text);
        }
        const bool has_text = has_letter_or_digit(page_str);
        bool want_ocr = page_exists && ocr_pages < options.max_ocr_pages &&
                        (options.ocr_mode == OcrMode::force || (options.ocr_mode == OcrMode::automatic && !has_text));
        if (want_ocr && !page) {
            page.reset(doc->create_page(i));
            want_ocr = page != nullptr;
        }
        bool timed_out = false;
        if (want_ocr) {
            int dpi = 0;
            poppler::image raster = render_grey(*page, options.max_pixels, dpi);
            ++ocr_pages;
            if (raster.is_valid() && raster.format() == poppler::image::format_gray8) {
                const GreyImage grey{reinterpret_cast<const unsigned char*>(raster.const_data()), raster.width(),
                                     raster.height(), raster.bytes_per_row(), dpi};
                OcrPage ocr = ocr_page(grey, options.ocr_langs, options.deadline);
                confidence_sum += ocr.confidence_sum;
                confidence_words += ocr.words;
                page_str = std::move(ocr.text);
                timed_out = ocr.timed_out && expired(options.deadline);
            } else {
                page_str.clear();
            }
            ocr_text = ocr_text || has_letter_or_digit(page_str);
        } else {
            layer_text = layer_text || has_text;
        }
        if (i > 0) {
            text += '\f';
        }
        text += page_str;
        if (timed_out) {
            // The page's partial text is kept, but it does not count as read.
            result.error = StepError{core::ErrorCode::timeout, "The job's time ran out while OCR read page " +
                                                                   std::to_string(i + 1) + " of " +
                                                                   std::to_string(page_count) + "."};
            break;
        }
        ++pages_done;
    }

    result.text = clean_text(text);
    if (pages_done < page_count) {
        result.pages_read = pages_done;
    }
    if (ocr_pages > 0) {
        result.ocr_pages = ocr_pages;
        result.ocr_confidence = confidence_words > 0 ? double(confidence_sum) / double(confidence_words) : 0.0;
    }
    // Where the text came from: `ocr` when only OCR found any (also when nothing was found
    // but OCR ran, as for a PDF of photos), `mixed` when both did.
    if (ocr_pages == 0 || (layer_text && !ocr_text)) {
        result.method = "text_layer";
    } else if (layer_text) {
        result.method = "mixed";
    } else {
        result.method = "ocr";
    }
    return result;
}

} // namespace extractors

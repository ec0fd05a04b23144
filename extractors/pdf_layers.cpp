#include "extractors/pdf_layers.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include <glib.h>

namespace extractors {

namespace {

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

} // namespace

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

// `doc` stays open throughout, so poppler's global parameters (created with the first
// document, under poppler's lock, freed with the last) outlive the other threads' documents.
// Poppler 22.12 also creates a process-wide colour profile, unlocked, in the first GfxState
// (the first page drawn): the calling thread draws a page before it starts any other thread,
// and reads alone when none of its first pages exists. A thread that cannot be started or
// cannot open its document leaves its pages to the others.
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
            if (stop.load(std::memory_order_relaxed) || std::chrono::steady_clock::now() >= deadline) {
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

} // namespace extractors

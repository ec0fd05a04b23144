#pragma once

#include <chrono>
#include <span>
#include <string>
#include <vector>

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-page.h>

namespace extractors {

/// True when `text` (UTF-8; invalid bytes are skipped) has a letter or digit: a PDF page
/// whose text has none has no text layer. Thread-safe.
bool has_letter_or_digit(const std::string& text);

/// The text layer of `page` in reading order over its whole media box, as pdftotext gives
/// it, without the page's closing form feed; unmapped glyphs become spaces.
std::string page_text(const poppler::page& page);

/// Fewer pages than this are read on the calling thread alone: another document costs a
/// parse of the file's cross-reference table, more than a few pages of text.
inline constexpr int k_min_pages_for_threads = 16;
/// Pages a thread claims at a time: runs of neighbours keep a document's caches useful, and
/// small runs let the threads finish together when pages differ in cost.
inline constexpr int k_chunk_pages = 8;
/// Each thread holds a document and a stack (8 MiB, counted by RLIMIT_DATA in the helper).
inline constexpr int k_max_pdf_threads = 8;

/// One page's text layer as the reading loop needs it.
struct LayerPage {
    std::string text;    // page_text(), empty when the page cannot be created
    bool exists = false; // create_page gave a page
    bool done = false;   // read (its thread found the deadline not yet passed)
};

/// The text layers of pages [0, count) read by `threads` threads, each over its own document
/// on `bytes` (a poppler document is not thread-safe), the calling thread over `doc`. Pages
/// nobody read by `deadline` stay not done. Rethrows the first exception of any thread
/// (std::bad_alloc) after all have ended.
std::vector<LayerPage> read_layers(poppler::document& doc, std::span<const unsigned char> bytes, int count, int threads,
                                   std::chrono::steady_clock::time_point deadline);

} // namespace extractors

// OCR of a PDF's pages: each page drawn at 300 dpi (less for a huge page) and read by
// Tesseract; the pages of a long scan by several threads when the job may use several cores.
#pragma once

#include "extractors/ocr_engine.hpp"
#include "extractors/step.hpp"

#include <span>
#include <vector>

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-page.h>

namespace extractors {

/// OCR of `page`, drawn for it. Page 1 (`first`) of a job that shares it is drawn in colour and
/// its drawing kept for this thread's thumbnailer (extractors/page_share.hpp). A page that
/// cannot be drawn gives an empty page. Throws as ocr_page.
OcrPage ocr_pdf_page(const poppler::page& page, bool first, const TextOptions& options);

/// OCR of the pages `pages` (0-based, ascending) of the PDF in `bytes`, open as `doc` on this
/// thread, by up to `threads` threads (extractors/page_threads.hpp): this thread over `doc`, taking the first page, and
/// each other over its own document (a poppler document is not thread-safe). The results are in the order of `pages`,
/// as one thread would give them. Rethrows the first exception of any thread once all have ended.
std::vector<OcrPage> ocr_pdf_pages(poppler::document& doc, std::span<const unsigned char> bytes,
                                   const std::vector<int>& pages, int threads, const TextOptions& options);

} // namespace extractors

#pragma once

#include "extractors/step.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>

namespace extractors {

/// The pixel budget of a PDF's pages: how many image pixels a page makes a renderer decode,
/// counted by walking the page's drawing operators without decoding any image. Poppler's
/// renderers decode every image whole whatever the output size, so a 1 MiB page that draws a
/// 32768 x 32768 image of compressed zeros costs half a minute at any DPI; this walk costs
/// what reading the page's text layer costs. Not thread-safe (one per thread).
class PdfPixelBudget {
public:
    /// Opens its own document over `bytes` (no copy: they outlive this object). A document
    /// Poppler cannot open counts no pixels: its renderer fails on its own.
    explicit PdfPixelBudget(std::span<const unsigned char> bytes);
    ~PdfPixelBudget();
    PdfPixelBudget(const PdfPixelBudget&) = delete;
    PdfPixelBudget& operator=(const PdfPixelBudget&) = delete;

    /// The pixels of the images (their masks included) that page `index` (0-based) draws, each
    /// time it draws one, including its annotations, forms, transparency groups and a tiling
    /// pattern's cell once; glyphs of Type 3 fonts are not walked. Stops counting once the sum
    /// passes `limit` or `deadline` passes (then the sum so far). 0 for a page that does not exist.
    std::uint64_t page_pixels(int index, std::uint64_t limit, std::chrono::steady_clock::time_point deadline);

    /// `too_many_pixels` for page `index` (0-based) when its images add up past `max_pixels`
    /// (INGEST_MAX_PIXELS), else nothing. `what` names the page ("Page 3 of 10").
    std::optional<StepError> check_page(int index, std::uint64_t max_pixels,
                                        std::chrono::steady_clock::time_point deadline, const std::string& what);

private:
    struct Document;
    std::unique_ptr<Document> m_doc;
};

} // namespace extractors

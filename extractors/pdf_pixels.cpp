#include "extractors/pdf_pixels.hpp"

#include <climits>
#include <cmath>

// Poppler's core (libpoppler-private-dev): poppler-cpp says nothing of a page's images.
#include <Gfx.h>
#include <GfxState.h>
#include <GlobalParams.h>
#include <OutputDev.h>
#include <PDFDoc.h>
#include <Page.h>
#include <Stream.h>

namespace extractors {

namespace {

void quiet(ErrorCategory, Goffset, const char*) {}

// An output device that draws nothing and adds up the pixels of the images it is handed.
// It never reads an image stream: for an inline image Gfx then skips to `EI` on the raw bytes.
class PixelCounter final : public OutputDev {
public:
    PixelCounter(PDFDoc& doc, std::uint64_t limit, std::chrono::steady_clock::time_point deadline)
        : m_doc(doc), m_limit(limit), m_deadline(deadline) {}

    std::uint64_t pixels() const { return m_pixels; }

    // Gfx's abort check (every few operators): over the limit or past the deadline.
    static bool stop(void* self) {
        auto* counter = static_cast<PixelCounter*>(self);
        return counter->m_pixels > counter->m_limit || std::chrono::steady_clock::now() >= counter->m_deadline;
    }

    bool upsideDown() override { return true; }
    bool useDrawChar() override { return false; }
    bool interpretType3Chars() override { return false; }
    bool useTilingPatternFill() override { return true; }

    // The pattern's cell once, not once per tile: what the images in it cost a renderer that
    // caches the tile (Splash and Cairo both do).
    bool tilingPatternFill(GfxState*, Gfx*, Catalog*, GfxTilingPattern* pattern, const double*, int, int, int, int,
                           double, double) override {
        if (m_pattern_depth >= k_max_pattern_depth) return true;
        const double* bbox = pattern->getBBox();
        PDFRectangle box(bbox[0], bbox[1], bbox[2], bbox[3]);
        ++m_pattern_depth;
        Gfx gfx(&m_doc, this, pattern->getResDict(), &box, nullptr, stop, this);
        gfx.display(pattern->getContentStream());
        --m_pattern_depth;
        return true;
    }

    void drawImageMask(GfxState*, Object*, Stream*, int width, int height, bool, bool, bool) override {
        add(width, height);
    }
    void setSoftMaskFromImageMask(GfxState*, Object*, Stream*, int width, int height, bool, bool, double*) override {
        add(width, height);
    }
    void unsetSoftMaskFromImageMask(GfxState*, double*) override {}
    void drawImage(GfxState*, Object*, Stream*, int width, int height, GfxImageColorMap*, bool, const int*,
                   bool) override {
        add(width, height);
    }
    void drawMaskedImage(GfxState*, Object*, Stream*, int width, int height, GfxImageColorMap*, bool, Stream*,
                         int mask_width, int mask_height, bool, bool) override {
        add(width, height);
        add(mask_width, mask_height);
    }
    void drawSoftMaskedImage(GfxState*, Object*, Stream*, int width, int height, GfxImageColorMap*, bool, Stream*,
                             int mask_width, int mask_height, GfxImageColorMap*, bool) override {
        add(width, height);
        add(mask_width, mask_height);
    }

private:
    static constexpr int k_max_pattern_depth = 8;

    void add(int width, int height) {
        if (width > 0 && height > 0) m_pixels += std::uint64_t(width) * std::uint64_t(height);
    }

    PDFDoc& m_doc;
    const std::uint64_t m_limit;
    const std::chrono::steady_clock::time_point m_deadline;
    std::uint64_t m_pixels = 0;
    int m_pattern_depth = 0;
};

std::string megapixels(std::uint64_t pixels) {
    const double mp = double(pixels) / 1e6;
    char buf[32];
    std::snprintf(buf, sizeof buf, mp >= 10 ? "%.0f" : "%.1f", mp);
    return buf;
}

} // namespace

struct PdfPixelBudget::Document {
    // Poppler's global parameters live while a document of ours (or of poppler-cpp) does.
    GlobalParamsIniter params{quiet};
    std::unique_ptr<PDFDoc> doc;
};

PdfPixelBudget::PdfPixelBudget(std::span<const unsigned char> bytes) : m_doc(std::make_unique<Document>()) {
    if (bytes.empty() || bytes.size() > static_cast<std::size_t>(INT_MAX)) return;
    // The stream borrows the bytes; the document owns the stream.
    auto* stream =
        new MemStream(reinterpret_cast<const char*>(bytes.data()), 0, Goffset(bytes.size()), Object(objNull));
    auto doc = std::make_unique<PDFDoc>(stream);
    if (doc->isOk()) m_doc->doc = std::move(doc);
}

PdfPixelBudget::~PdfPixelBudget() = default;

std::uint64_t PdfPixelBudget::page_pixels(int index, std::uint64_t limit,
                                          std::chrono::steady_clock::time_point deadline) {
    PDFDoc* doc = m_doc->doc.get();
    if (doc == nullptr || index < 0 || index >= doc->getNumPages()) return 0;
    PixelCounter counter(*doc, limit, deadline);
    // As poppler-cpp's renderer draws it: crop box, annotations shown, not printing; 72 dpi
    // (the DPI changes no image's pixel count).
    doc->displayPageSlice(&counter, index + 1, 72.0, 72.0, 0, false, true, false, -1, -1, -1, -1, PixelCounter::stop,
                          &counter);
    return counter.pixels();
}

std::optional<StepError> PdfPixelBudget::check_page(int index, std::uint64_t max_pixels,
                                                    std::chrono::steady_clock::time_point deadline,
                                                    const std::string& what) {
    const std::uint64_t pixels = page_pixels(index, max_pixels, deadline);
    if (pixels <= max_pixels) return std::nullopt;
    return StepError{core::ErrorCode::too_many_pixels, what + " was not rendered: its images add up to at least " +
                                                           megapixels(pixels) + " megapixels, above the limit of " +
                                                           megapixels(max_pixels) + " (INGEST_MAX_PIXELS)."};
}

} // namespace extractors

// The PDF text layer (Poppler), OCR off so that an input runs in milliseconds.
#include "extractors/pdf_text.hpp"

#include <chrono>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    extractors::TextOptions o;
    o.ocr_mode = extractors::OcrMode::off;
    o.max_pages = 20;
    o.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    (void)extractors::extract_pdf_text({data, size}, o);
    return 0;
}

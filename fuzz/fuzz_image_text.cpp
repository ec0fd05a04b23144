// Image decoding for OCR (libvips) and Tesseract on small images.
#include "extractors/image_text.hpp"
#include "extractors/sniff/content_type.hpp"
#include "thumbnails/thumbnailer.hpp"

#include <chrono>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bool ready = (thumbnails::init(), true);
    (void)ready;
    const std::string mime = extractors::detect_content_type_buffer(data, size);
    if (!extractors::is_ocr_image(mime)) return 0;
    extractors::TextOptions o;
    o.max_pixels = 1 << 20;
    o.max_ocr_pages = 2;
    o.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    (void)extractors::extract_image_text({data, size}, mime, o);
    return 0;
}

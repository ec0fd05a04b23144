// Thumbnails of images (libvips loaders we unblock) and of PDFs (Poppler rendering), through
// the renderer table as the helper picks them.
#include "extractors/sniff/content_type.hpp"
#include "thumbnails/thumbnailer.hpp"

#include <chrono>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static bool ready = (thumbnails::init(), true);
    (void)ready;
    const std::string mime = extractors::detect_content_type_buffer(data, size);
    thumbnails::Options o;
    o.max_pixels = 1 << 24;
    o.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    if (const thumbnails::Renderer* renderer = thumbnails::find_renderer(mime)) {
        (void)renderer->render({data, size}, o);
    }
    return 0;
}

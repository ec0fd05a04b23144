#include "thumbnails/runtime.hpp"

#include "thumbnails/image_thumbnail.hpp"
#include "thumbnails/pdf_thumbnail.hpp"

#include <mutex>
#include <span>
#include <stdexcept>
#include <utility>
#include <vips/vips8>

#include <poppler-global.h>

namespace thumbnails {

namespace {

// Loader families (file, buffer and source variants share one parser) that stay
// usable after every other loader is blocked. PDF, SVG, ImageMagick & co stay blocked.
constexpr const char* k_allowed_loaders[] = {
    "VipsForeignLoadJpeg", "VipsForeignLoadPng",  "VipsForeignLoadNsgif",
    "VipsForeignLoadWebp", "VipsForeignLoadTiff", "VipsForeignLoadHeif",
};

// Written out byte for byte (the xref offsets are exact): one page, "Warm up 123" in Helvetica.
constexpr const char k_tiny_pdf[] = "%PDF-1.4\n"
                                    "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n"
                                    "2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"
                                    "3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources "
                                    "<< /Font << /F1 4 0 R >> >> /Contents 5 0 R >>\nendobj\n"
                                    "4 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n"
                                    "5 0 obj\n<< /Length 41 >>\nstream\n"
                                    "BT /F1 24 Tf 20 40 Td (Warm up 123) Tj ET\nendstream\nendobj\n"
                                    "xref\n0 6\n"
                                    "0000000000 65535 f \n"
                                    "0000000009 00000 n \n"
                                    "0000000058 00000 n \n"
                                    "0000000115 00000 n \n"
                                    "0000000241 00000 n \n"
                                    "0000000311 00000 n \n"
                                    "trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n402\n%%EOF\n";

void silence_poppler(const std::string& /*message*/, void* /*closure*/) {}

void silence_glib(const gchar* /*domain*/, GLogLevelFlags /*level*/, const gchar* /*message*/, gpointer /*data*/) {}

std::span<const unsigned char> as_bytes(const std::string& bytes) {
    return {reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()};
}

// A small gradient with alpha in each format we read (what the savers of this libvips can
// write), through the same path as an upload.
void warm_image_loaders() {
    vips::VImage grey = vips::VImage::xyz(32, 24)[0].cast(VIPS_FORMAT_UCHAR);
    vips::VImage rgba =
        grey.bandjoin({grey, grey, grey}).copy(vips::VImage::option()->set("interpretation", VIPS_INTERPRETATION_sRGB));
    vips::VImage rgb = rgba.extract_band(0, vips::VImage::option()->set("n", 3));
    const std::pair<const char*, const vips::VImage*> formats[] = {
        {".jpg", &rgb}, {".png", &rgba}, {".webp", &rgba}, {".gif", &rgb}, {".tif", &rgb}};
    for (const auto& [suffix, image] : formats) {
        try {
            void* buffer = nullptr;
            std::size_t length = 0;
            image->write_to_buffer(suffix, &buffer, &length);
            const std::string bytes(static_cast<const char*>(buffer), length);
            g_free(buffer);
            render_image(as_bytes(bytes), Options{});
        } catch (const std::exception&) {
            vips_error_clear(); // a saver this libvips lacks: that loader stays cold
        }
    }
}

} // namespace

void init() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (VIPS_INIT("ingestd") != 0) {
            std::string message = vips_error_buffer();
            vips_error_clear();
            throw std::runtime_error("libvips failed to start: " + message);
        }
        vips_block_untrusted_set(TRUE);
        vips_operation_block_set("VipsForeignLoad", TRUE);
        for (const char* loader : k_allowed_loaders) {
            vips_operation_block_set(loader, FALSE);
        }
        // Every file is new: a cache only holds memory and references to borrowed bytes.
        vips_cache_set_max(0);
        vips_cache_set_max_mem(0);
        // Parallelism comes from parallel jobs, not from threads inside one thumbnail.
        vips_concurrency_set(1);
        // Per-file warnings (truncated data...) would otherwise go to stderr unstructured.
        g_log_set_handler("VIPS", static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE), silence_glib,
                          nullptr);
        poppler::set_debug_error_function(silence_poppler, nullptr);
    });
}

void thread_shutdown() {
    vips_thread_shutdown();
}

std::string tiny_pdf() {
    return std::string(k_tiny_pdf, sizeof k_tiny_pdf - 1);
}

void warm_up() {
    try {
        init();
        render_pdf(as_bytes(tiny_pdf()), Options{});
        warm_image_loaders();
    } catch (const std::exception&) {
        vips_error_clear();
    }
}

} // namespace thumbnails

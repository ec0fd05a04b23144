#include "thumbnails/registry.hpp"

#include "thumbnails/document_thumbnail.hpp"
#include "thumbnails/image_thumbnail.hpp"
#include "thumbnails/pdf_thumbnail.hpp"

namespace thumbnails {

namespace {

bool is_pdf(const std::string& mime) {
    return mime == "application/pdf";
}

constexpr Renderer k_renderers[] = {
    {"image", is_supported_image, render_image},
    {"pdf", is_pdf, render_pdf},
    {"document", is_zip_document, render_document},
};

} // namespace

const Renderer* find_renderer(const std::string& mime) {
    for (const Renderer& row : k_renderers) {
        if (row.accepts(mime)) return &row;
    }
    return nullptr;
}

} // namespace thumbnails

#include "thumbnails/document_thumbnail.hpp"

#include "extractors/document_error.hpp"
#include "extractors/document_text.hpp"
#include "extractors/document_type.hpp"
#include "extractors/sniff/content_type.hpp"
#include "thumbnails/image_thumbnail.hpp"

namespace thumbnails {

bool is_zip_document(const std::string& mime) {
    return extractors::is_ooxml_type(mime) || extractors::is_odf_type(mime) || extractors::is_epub_type(mime);
}

Result render_document(std::span<const unsigned char> bytes, const Options& options) {
    Result result;
    try {
        const auto preview = extractors::embedded_preview(bytes, options);
        if (!preview || preview->empty() ||
            !is_supported_image(extractors::detect_content_type_buffer(preview->data(), preview->size()))) {
            result.not_applicable = true;
            return result;
        }
        Result drawn =
            render_image(std::span(reinterpret_cast<const unsigned char*>(preview->data()), preview->size()), options);
        drawn.width.reset(); // the preview's size is not the document's
        drawn.height.reset();
        return drawn;
    } catch (const extractors::DocumentError& e) {
        result.error = e.failure();
        return result;
    }
}

} // namespace thumbnails

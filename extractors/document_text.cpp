#include "extractors/document_text.hpp"

#include "extractors/document_error.hpp"
#include "extractors/document_type.hpp"
#include "extractors/epub_text.hpp"
#include "extractors/odf_text.hpp"
#include "extractors/ooxml_package.hpp"
#include "extractors/text_clean.hpp"
#include "extractors/zip_archive.hpp"

namespace extractors {
namespace {

std::string ooxml_text(ZipArchive& zip, const std::string& mime, const core::Options& options) {
    OoxmlPackage package(zip, options);
    if (mime.find("wordprocessingml") != std::string::npos || mime.find("ms-word") != std::string::npos) {
        return docx_text(package);
    }
    if (mime.find("spreadsheetml") != std::string::npos || mime.find("ms-excel") != std::string::npos) {
        return xlsx_text(package);
    }
    return pptx_text(package);
}

std::string text_of(ZipArchive& zip, const std::string& mime, const core::Options& options) {
    if (is_odf_type(mime)) return odf_text(zip, options);
    if (is_epub_type(mime)) return epub_text(zip, options);
    return ooxml_text(zip, mime, options);
}

} // namespace

TextResult extract_document_text(std::span<const unsigned char> bytes, const std::string& mime,
                                 const TextOptions& options) {
    TextResult result;
    result.method = "document";
    try {
        ZipArchive zip(bytes, options);
        result.text = clean_text(text_of(zip, mime, options));
    } catch (const DocumentError& e) {
        result.error = e.failure();
    }
    return result;
}

TextResult encrypted_document_result() {
    TextResult result;
    result.method = "document";
    result.error = StepError{core::ErrorCode::encrypted_document, "The document is password-protected."};
    return result;
}

std::optional<std::string> embedded_preview(std::span<const unsigned char> bytes, const core::Options& options) {
    ZipArchive zip(bytes, options);
    for (const char* name :
         {"docProps/thumbnail.jpeg", "docProps/thumbnail.jpg", "docProps/thumbnail.png", "Thumbnails/thumbnail.png"}) {
        if (auto image = zip.read(name)) return image;
    }
    if (zip.has("META-INF/container.xml") && !zip.has("content.xml")) return epub_cover(zip, options);
    return std::nullopt;
}

} // namespace extractors

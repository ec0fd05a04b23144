#pragma once

#include <span>
#include <string>
#include <string_view>

namespace extractors {

/// Office documents and e-books are zips, and libmagic names them only when their parts
/// come in the order Office writes them. When `mime` (libmagic's type) is a zip, a
/// document type or unknown and the bytes are a zip, the type is read from the package
/// itself: ODF's and EPUB's `mimetype` part, OOXML's main part in `[Content_Types].xml`.
/// An OLE container with an `EncryptionInfo` stream (a password-protected OOXML file) is
/// `application/encrypted`. Anything else: `mime` unchanged. Never throws for bad bytes.
/// Runs in the helper (it opens the zip with libzip).
std::string refine_content_type(std::span<const unsigned char> bytes, const std::string& mime);

/// The same for the file behind `fd` (mapped read-only for the look).
std::string refine_content_type(int fd, const std::string& mime);

/// The zip-based document types this build reads (OOXML, ODF, EPUB).
bool is_ooxml_type(std::string_view mime);
bool is_odf_type(std::string_view mime);
inline bool is_epub_type(std::string_view mime) {
    return mime == "application/epub+zip";
}

} // namespace extractors

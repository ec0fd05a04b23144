#pragma once

#include "thumbnails/result.hpp"

#include <span>
#include <string>

namespace thumbnails {

/// True for the zip-based document types (OOXML, ODF, EPUB) whose embedded preview image
/// is their thumbnail.
bool is_zip_document(const std::string& mime);

/// The thumbnails of the preview image a document embeds (docProps/thumbnail.*,
/// Thumbnails/thumbnail.png, the EPUB cover), drawn by the image renderer from memory;
/// `not_applicable` when there is none or it is in a format we do not draw (WMF, EMF).
Result render_document(std::span<const unsigned char> bytes, const Options& options);

} // namespace thumbnails

#pragma once

#include "extractors/step.hpp"

#include <optional>
#include <span>
#include <string>

namespace extractors {

/// The text of a zip-based document (OOXML, ODF or EPUB, by its refined type `mime`), method
/// `document`. Limits, damage and passwords end in the result's error (too_large_unpacked,
/// corrupt_file, encrypted_document); never throws for bad bytes. Thread-safe.
TextResult extract_document_text(std::span<const unsigned char> bytes, const std::string& mime,
                                 const TextOptions& options);

/// A password-protected OOXML file (an OLE container with EncryptionInfo): encrypted_document.
TextResult encrypted_document_result();

/// The preview image a zip-based document embeds (OOXML docProps/thumbnail.*, ODF
/// Thumbnails/thumbnail.png, the EPUB cover), or nullopt; throws DocumentError.
std::optional<std::string> embedded_preview(std::span<const unsigned char> bytes, const core::Options& options);

} // namespace extractors

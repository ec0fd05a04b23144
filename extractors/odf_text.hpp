#pragma once

#include "extractors/zip_archive.hpp"

#include <string>

namespace extractors {

/// OpenDocument (ODT, ODS, ODP): paragraphs and headings on their lines, table cells
/// tab-separated, each sheet (its name first) and each drawing page after a form feed, then
/// the text document's headers and footers. A package whose manifest lists encryption data
/// is DocumentError encrypted_document.
std::string odf_text(ZipArchive& zip, const core::Options& options);

} // namespace extractors

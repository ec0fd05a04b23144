#pragma once

#include "extractors/zip_archive.hpp"

#include <optional>
#include <string>

namespace extractors {

/// EPUB: the visible text of each spine document in reading order, a form feed between
/// chapters. Throws DocumentError (corrupt_file without a package document).
std::string epub_text(ZipArchive& zip, const core::Options& options);

/// The bytes of the EPUB's cover image (EPUB 3 `properties="cover-image"`, or EPUB 2
/// `<meta name="cover">`), or nullopt.
std::optional<std::string> epub_cover(ZipArchive& zip, const core::Options& options);

} // namespace extractors

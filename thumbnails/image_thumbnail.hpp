#pragma once

#include "thumbnails/result.hpp"

#include <span>
#include <string>

namespace thumbnails {

/// True when `mime` (detected from the bytes) is an image type we thumbnail: those whose
/// libvips loader stays unblocked (JPEG, PNG, GIF, WebP, TIFF, HEIF/AVIF).
bool is_supported_image(const std::string& mime);

/// Renders the three WebP thumbnails of an image (first frame / first page) from its bytes,
/// EXIF orientation applied, colour converted to sRGB, metadata stripped, alpha kept.
/// Never throws for bad input: the failure is in `Result::error`. Call init() first.
Result render_image(std::span<const unsigned char> bytes, const Options& options);

} // namespace thumbnails

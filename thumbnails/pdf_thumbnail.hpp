#pragma once

#include "thumbnails/result.hpp"

#include <span>

namespace thumbnails {

/// Renders the three WebP thumbnails of the first page of a PDF, drawn by Poppler at the
/// size of the largest box (never above 72 dpi, so a small page is not upscaled). Never
/// throws for bad input: `corrupt_file`, `encrypted_pdf`, `too_many_pixels`, `timeout` come
/// back in `Result::error`. Call init() first.
Result render_pdf(std::span<const unsigned char> bytes, const Options& options);

} // namespace thumbnails

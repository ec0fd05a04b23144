#pragma once

#include "extractors/step.hpp"

#include <vips/vips8>

namespace extractors {

/// Colour rasters of at least this many pixels are taken as photos: before OCR reads one at
/// full resolution, a reduced copy is looked at for signs of text (most photos have none, and
/// Tesseract's layout analysis spends seconds on their texture for nothing).
inline constexpr double k_photo_pixels = 4e6;

/// Long side of the reduced copy that is looked at (a photographed page is then ~100 dpi: small print reads as many
/// words of low confidence, headings as confident ones).
inline constexpr int k_photo_preview_side = 1200;

/// The most pixels OCR reads of a photo that shows text: a 12 MP camera's frame, ~330 dpi on a
/// photographed page; larger photos are scaled down to it.
inline constexpr double k_max_photo_ocr_pixels = 12e6;

/// True when `image` (a page's header is enough) is photo-sized colour.
bool is_photo(const vips::VImage& image);

/// Whether the photo in `blob` may hold text: one recognition pass over a reduced, upright,
/// levelled, grey copy (decoded with shrink-on-load) finds a few confident words, or many words (text
/// on its side reads as garbage, but much of it). Throws vips::VError when it cannot be decoded.
bool photo_shows_text(VipsBlob* blob, const TextOptions& options);

} // namespace extractors

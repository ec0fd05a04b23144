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

/// A colour image that is a page (scanned or saved in colour) rather than a photo: no colour
/// to speak of (mean |R-G| + |G-B| below k_paper_colour) and most of it paper (a share above
/// k_paper_share of pixels lighter than k_paper_level). `reduced` is a small sRGB copy.
inline constexpr double k_paper_colour = 8.0;
inline constexpr double k_paper_level = 200.0;
inline constexpr double k_paper_share = 0.6;
bool looks_like_paper(const vips::VImage& reduced);

/// What a look at a photo-sized colour image decided.
enum class PhotoLook {
    no_text, ///< a photo without signs of text: not read further
    text,    ///< a photo with signs of text: read in full, at most k_max_photo_ocr_pixels
    paper,   ///< a page in colour (looks_like_paper): read in full, in grey, as a scan is
};

/// Looks at the photo in `blob`: paper (looks_like_paper), or one recognition pass over a
/// reduced, upright, levelled, grey copy (decoded with shrink-on-load) that finds a few
/// confident words, or many words (text on its side reads as garbage, but much of it), or
/// neither. Throws vips::VError when it cannot be decoded.
PhotoLook look_at_photo(VipsBlob* blob, const TextOptions& options);

} // namespace extractors

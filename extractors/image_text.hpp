#pragma once

#include "extractors/sniff/ocr_langs.hpp"
#include "extractors/step.hpp"

#include <span>
#include <string>

namespace extractors {

/// True when `mime` (detected from the bytes) is an image we OCR.
bool is_ocr_image(const std::string& mime);

/// OCR of an image (every page of a TIFF), decoded to 8-bit grey or RGB with EXIF orientation
/// applied, orientation fixed with OSD when the first pass has low confidence. A photo
/// with no text is done with empty text. Never throws for bad input. Thread-safe.
TextResult extract_image_text(std::span<const unsigned char> bytes, const std::string& mime,
                              const TextOptions& options);

} // namespace extractors

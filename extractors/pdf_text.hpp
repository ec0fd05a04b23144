#pragma once

#include "extractors/step.hpp"

#include <span>

namespace extractors {

/// Text of a PDF through poppler-cpp in reading order, pages joined with a form feed,
/// pages without a text layer OCR'd per `options.ocr_mode`. Never throws for bad input:
/// `encrypted_pdf`, `corrupt_file`, `timeout` come back in `TextResult::error`.
/// Thread-safe (one OCR engine per thread).
TextResult extract_pdf_text(std::span<const unsigned char> bytes, const TextOptions& options);

} // namespace extractors

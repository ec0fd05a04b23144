#pragma once

#include <cstdint>
#include <string_view>

namespace extractors {

/// Images from this size on may take seconds of OCR (a page-sized scan or screenshot); a
/// smaller one is read in a fraction of a second.
inline constexpr std::uint64_t k_slow_image_bytes = 64 * 1024;

/// Bytes of a file's start that may_take_ocr_time looks at.
inline constexpr std::size_t k_ocr_time_head = 1024;

/// Whether a file of `size` bytes that starts with `head` may spend long in OCR: a PDF (its
/// header within the first 1024 bytes, as readers accept it), a TIFF (a scanner's format), or
/// another image (JPEG, PNG, GIF, WebP, HEIF/AVIF, BMP) of at least k_slow_image_bytes. Magic
/// numbers only, for scheduling: libmagic in the helper decides the type. Thread-safe.
bool may_take_ocr_time(std::string_view head, std::uint64_t size);

/// may_take_ocr_time of the file behind `fd` (its first bytes read with pread); false when
/// they cannot be read.
bool may_take_ocr_time(int fd, std::uint64_t size);

} // namespace extractors

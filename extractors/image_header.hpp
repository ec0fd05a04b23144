#pragma once

#include "core/error_code.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace extractors {

/// The too_many_pixels failure of a `width` x `height` image above `max_pixels`.
core::Failure too_many_pixels_failure(std::uint64_t width, std::uint64_t height, std::uint64_t max_pixels);

/// For a HEIF or AVIF file (an ISO-BMFF `ftyp` brand libheif knows), the too_many_pixels
/// failure when the size its primary image declares (libheif reads the boxes, decodes no
/// pixel, and applies no size limit of its own here) is above `max_pixels`; nullopt for any
/// other file, a size within it, or a header libheif cannot read (decoding then says what
/// is wrong). Thread-safe.
std::optional<core::Failure> heif_size_failure(std::span<const unsigned char> bytes, std::uint64_t max_pixels);

/// For a TIFF libvips could not decode: the unsupported_format failure naming the valid
/// variant it does not read (old-style JPEG compression, YCbCr colour with chroma
/// subsampling), from the first directory's tags read by libtiff; nullopt for any other
/// file (which is then damaged). Thread-safe.
std::optional<core::Failure> tiff_variant_failure(std::span<const unsigned char> bytes);

/// The bytes decoding `bytes` (of type `mime`) holds at once whatever size it is decoded
/// to: for a progressive JPEG, its whole image's DCT coefficients (libjpeg keeps them all
/// until the last scan; 2 bytes per pixel per full-resolution plane: 162 MB for a 24 MP
/// 4:4:4 photo, shrink-on-load or not); 0 for every other file, which libvips decodes a
/// band of rows at a time, and for a header that cannot be read. Reads the header only.
std::uint64_t whole_image_bytes(std::span<const unsigned char> bytes, const std::string& mime);

} // namespace extractors

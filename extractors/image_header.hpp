#pragma once

#include "core/error_code.hpp"

#include <cstdint>
#include <optional>
#include <span>

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

} // namespace extractors

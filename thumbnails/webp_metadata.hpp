#pragma once

#include <string>
#include <string_view>

namespace thumbnails {

/// Returns `webp` without its EXIF, XMP and ICCP chunks, with the VP8X flags that announce
/// them cleared (and no VP8X at all when nothing else needs it). Throws std::runtime_error
/// when the bytes are not a well-formed RIFF WebP. Pure function, thread-safe.
///
/// Needed because libvips 8.14.1's webpsave ignores `strip`: it always writes an EXIF chunk
/// (rebuilt from the image's fields) and any XMP or ICC profile the image carries.
std::string strip_webp_metadata(std::string_view webp);

} // namespace thumbnails

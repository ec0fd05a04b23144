#pragma once

#include "core/layout.hpp"
#include "thumbnails/result.hpp"

#include <vips/vips8>

namespace thumbnails {

/// The largest thumbnail box (288): the size decoders and renderers aim at first.
inline constexpr int k_largest_size = core::k_thumbnail_sizes.back();

/// Encodes the WebP files of every size, largest first, from `base`, an in-memory 8-bit sRGB
/// image; `base_fits` says that it already is the largest thumbnail, otherwise every size is
/// derived from it. Metadata (orientation, pages, EXIF, XMP, ICC, IPTC) is stripped. Returns
/// a timeout failure when the deadline passes between sizes; throws vips::VError.
Result encode_sizes(const vips::VImage& base, bool base_fits, const Options& options);

} // namespace thumbnails

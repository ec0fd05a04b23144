#pragma once

#include "core/error_code.hpp"
#include "core/options.hpp"

#include <optional>
#include <string>
#include <vector>

namespace thumbnails {

/// What the thumbnailer needs to know (max_pixels, webp_quality, deadline): the one options
/// value (core/options.hpp).
using Options = core::Options;

/// One WebP thumbnail.
struct Thumbnail {
    int size = 0;  // 72, 144 or 288: the box it fits in
    int width = 0; // of the WebP
    int height = 0;
    std::string webp; // the encoded file
};

/// Result of one file; `error` set means the step failed with a spec code
/// (`corrupt_file`, `too_many_pixels`, ...) and a readable sentence.
struct Result {
    using Error = core::Failure;
    std::optional<Error> error;
    std::vector<Thumbnail> thumbnails; // largest first (288, 144, 72) when done
    std::optional<int> width;          // images only, after EXIF orientation
    std::optional<int> height;
    /// No error and nothing to draw: the step is not_applicable (a document without an
    /// embedded preview).
    bool not_applicable = false;
};

} // namespace thumbnails

#pragma once

#include "thumbnails/result.hpp"

#include <span>
#include <string>

namespace thumbnails {

/// One row of the renderer table: the content types it draws and how.
struct Renderer {
    const char* name; // "image", "pdf"
    /// True when the renderer draws files of the type `mime` detected from the bytes.
    bool (*accepts)(const std::string& mime);
    /// The thumbnails of one file; never throws for bad input.
    Result (*render)(std::span<const unsigned char> bytes, const Options& options);
};

/// The renderer of a detected type, or nullptr when its thumbnails are not_applicable.
/// Thread-safe (a constant table).
const Renderer* find_renderer(const std::string& mime);

} // namespace thumbnails

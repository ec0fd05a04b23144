#pragma once

#include "core/error_code.hpp"
#include "core/options.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace thumbnails {

/// The three sizes of the spec, largest first.
inline constexpr int k_sizes[] = {288, 144, 72};

/// What the thumbnailer needs to know (max_pixels, webp_quality, deadline): the one options
/// value (core/options.hpp).
using Options = core::Options;

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
    std::vector<Thumbnail> thumbnails; // 288, 144, 72 when done
    std::optional<int> width;          // images only, after EXIF orientation
    std::optional<int> height;
};

/// Initialises libvips for a long-running process: once, loaders outside our list blocked,
/// small operation cache, bounded inner concurrency. Thread-safe; later calls do nothing.
void init();

/// Runs every image loader we allow, the WebP encoder and the PDF renderer once on tiny
/// images made here, so that the first real file of a long-lived helper does not pay for
/// loader, codec and font set-up (about 50-100 ms in all). Never throws.
void warm_up();

/// A valid one-page PDF with one line of text in a standard font, built in memory (for
/// warm-ups and tests).
std::string tiny_pdf();

/// Call on a thread that used libvips before it exits.
void thread_shutdown();

/// True when `mime` (detected from the bytes) is an image type we thumbnail.
bool is_supported_image(const std::string& mime);

/// Renders the three WebP thumbnails of an image (first frame / first page) from its bytes.
/// Never throws for bad input: the failure is in `Result::error`.
Result render_image(std::span<const unsigned char> bytes, const Options& options);

/// Renders the three WebP thumbnails of the first page of a PDF, rendered with Poppler.
Result render_pdf(std::span<const unsigned char> bytes, const Options& options);

} // namespace thumbnails

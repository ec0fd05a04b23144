#pragma once

#include <filesystem>
#include <string>

namespace testsupport {

/// Writes a `width` x `height` RGB test image of noise with the `vips` CLI (libvips-tools);
/// the format follows the suffix of `path` (.png, .jpg, .gif, .webp, .tif). Throws
/// std::runtime_error when vips fails.
void write_image(const std::filesystem::path& path, int width, int height);

/// Writes a Letter page at 300 dpi (2550 x 3300 pixels, greyscale JPEG) of `lines` lines of
/// dark text on white, rendered with `vips text`: what a scanner makes of a typed page.
/// Throws std::runtime_error when vips fails.
void write_text_scan(const std::filesystem::path& jpeg, int lines);

/// A PDF of `pages` copies of a page made by write_text_scan (its work files go to `dir`):
/// no text layer, so the worker OCRs it, about two seconds of one core a page.
std::string scanned_text_pdf(const std::filesystem::path& dir, int pages);

/// Width and height of the page that write_text_scan makes.
inline constexpr int k_scan_width = 2550;
inline constexpr int k_scan_height = 3300;

} // namespace testsupport

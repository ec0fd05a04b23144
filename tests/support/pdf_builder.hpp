#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace testsupport {

/// Builds a small PDF object by object; `finish` adds the cross-reference table and trailer
/// with exact offsets, so the file needs no repair by the reader.
class PdfBuilder {
public:
    /// Reserves the next object number; its body is given later with `set`.
    int reserve();

    /// Sets the body of object `number` (the text between `N 0 obj` and `endobj`).
    void set(int number, const std::string& body);

    /// Adds an object with `body`; returns its number.
    int add(const std::string& body);

    /// Adds a stream object whose dictionary holds `entries` (without `<<` `>>`) and /Length.
    int add_stream(const std::string& entries, const std::string& data);

    /// The whole file with /Root `root`; throws std::logic_error when an object was never set.
    std::string finish(int root) const;

private:
    std::vector<std::string> m_bodies;
    std::vector<bool> m_set;
};

/// A PDF with one Letter page per element of `pages`, each line of it set in Helvetica: a
/// text layer that Poppler reads back as written.
std::string text_pdf(const std::vector<std::string>& pages);

/// A PDF of `pages` Letter pages, each showing the greyscale JPEG `jpeg` (`width` x `height`
/// pixels) edge to edge: a scan without a text layer, which the worker OCRs.
std::string scanned_pdf(const std::string& jpeg, int width, int height, int pages);

/// A zlib (FlateDecode) stream of `count` zero bytes, about a thousandth of their size: one
/// compressed MiB repeated, so that a gigabyte costs the test milliseconds.
std::string flate_zeros(std::uint64_t count);

/// An image XObject dictionary's entries (without `<<` `>>`, for `add_stream`) and its data:
/// `width` x `height` 8-bit grey pixels, all zero, FlateDecode. `extra` is added to the entries
/// (`/SMask 7 0 R`).
std::pair<std::string, std::string> zero_image(int width, int height, const std::string& extra = "");

/// A PDF of one Letter page that draws zero_image(width, height) over the whole page: with
/// 32768 x 32768, a 1 MiB file whose page decodes a gigapixel.
std::string zero_image_pdf(int width, int height);

/// A PowerPoint-like slide (960 x 540 pt): a 2 x 2 solid blue image stretched over it with a
/// 1-bit /SMask stencil of `mask_width` x `mask_height` pixels, eight horizontal bands (the
/// first opaque) with a disc in the middle whose bands are inverted: how PowerPoint exports
/// shapes and lettering.
std::string stencil_slide_pdf(int mask_width, int mask_height);

} // namespace testsupport

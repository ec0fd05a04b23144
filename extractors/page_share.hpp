// A PDF's first page drawn once for two steps. When a job asks for both text and thumbnails,
// OCR draws page 1 in colour at its own resolution, reads a grey copy of it, and leaves the
// drawing here; the thumbnailer of the same job takes it instead of drawing the page again
// (Poppler decodes every image of a page whole, whatever the resolution: a scanned page's
// image is decoded once per job, not twice).
//
// The slot is per thread: a job's steps run one after the other on one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace extractors {

/// A drawn page: 8-bit RGB, rows of `width` pixels without padding.
struct PageDrawing {
    std::vector<unsigned char> rgb;
    int width = 0;
    int height = 0;
};

/// The drawing of a Poppler ARGB32 raster (native-endian 0xAARRGGBB on an opaque paper,
/// rows `stride` bytes apart); with `grey`, also its luma, one byte a pixel, rows unpadded.
PageDrawing drawing_of_argb(const char* data, int width, int height, int stride,
                            std::vector<unsigned char>* grey = nullptr);

/// While it lives, this thread's job shares its first PDF page between the steps (when
/// `both_steps`); whatever drawing is left is dropped when it ends.
class FirstPageShare {
public:
    explicit FirstPageShare(bool both_steps);
    ~FirstPageShare();
    FirstPageShare(const FirstPageShare&) = delete;
    FirstPageShare& operator=(const FirstPageShare&) = delete;
};

/// True when OCR of page 1 should draw it in colour and keep it for the thumbnailer.
bool first_page_shared();

/// Keeps the drawing of page 1 for the thumbnailer of this job.
void keep_first_page(PageDrawing drawing);

/// The drawing of page 1 kept by OCR in this job, taken out of the slot; or nothing.
std::optional<PageDrawing> take_first_page();

/// How many drawings thumbnailers took in this process (each a page not drawn twice).
std::uint64_t first_pages_taken();

} // namespace extractors

#include "extractors/photo_check.hpp"

#include "extractors/deskew.hpp"
#include "extractors/ocr_engine.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

namespace extractors {

namespace {

// Signs of text: this many confident words (a sign, a heading, a line of a page), or this
// many words at all (a page photographed on its side reads as many low-confidence words,
// where a photo's texture gives a few).
constexpr int k_confident_words = 3;
constexpr int k_any_words = 20;

// The look at the reduced copy stops after this long; a photo still unread then is read in full.
constexpr std::chrono::seconds k_look_cap{10};

// The reduced copy in colour (sRGB or grey), on white where it had transparency.
vips::VImage reduced_copy(VipsBlob* blob) {
    vips::VImage small = vips::VImage::thumbnail_buffer(
        blob, k_photo_preview_side,
        vips::VImage::option()->set("height", k_photo_preview_side)->set("size", VIPS_SIZE_DOWN));
    if (small.has_alpha()) {
        small = small.flatten(vips::VImage::option()->set("background", std::vector<double>(3, 255.0)));
    }
    return small.copy_memory();
}

vips::VImage grey_of(vips::VImage small) {
    small = small.colourspace(VIPS_INTERPRETATION_B_W);
    if (small.bands() > 1) small = small.extract_band(0);
    if (small.format() != VIPS_FORMAT_UCHAR) small = small.cast(VIPS_FORMAT_UCHAR);
    return small.copy_memory();
}

} // namespace

bool is_photo(const vips::VImage& image) {
    const bool colour = image.bands() - (image.has_alpha() ? 1 : 0) >= 3;
    return colour && double(image.width()) * double(image.height()) >= k_photo_pixels;
}

bool looks_like_paper(const vips::VImage& reduced) {
    if (reduced.bands() < 3) return false;
    const vips::VImage rgb = reduced.extract_band(0, vips::VImage::option()->set("n", 3)).cast(VIPS_FORMAT_FLOAT);
    const double colour = (rgb[0] - rgb[1]).abs().avg() + (rgb[1] - rgb[2]).abs().avg();
    const double light = (grey_of(reduced) > k_paper_level).avg() / 255.0;
    return colour < k_paper_colour && light > k_paper_share;
}

PhotoLook look_at_photo(VipsBlob* blob, const TextOptions& options) {
    const vips::VImage colour = reduced_copy(blob);
    // A page scanned or saved in colour is read in full at once: the look would read its
    // text twice (a third of a page's OCR time).
    if (looks_like_paper(colour)) return PhotoLook::paper;
    const vips::VImage small = grey_of(colour);
    const GreyImage view{static_cast<const unsigned char*>(small.data()),
                         small.width(),
                         small.height(),
                         static_cast<int>(VIPS_IMAGE_SIZEOF_LINE(small.get_image())),
                         0,
                         1};
    const auto end = std::min(options.deadline, std::chrono::steady_clock::now() + k_look_cap);
    // Levelled first, as the full reading is: Tesseract's layout analysis finds no block in
    // a page photographed a few degrees askew.
    const std::optional<LevelledPage> level = deskewed(view);
    const TextSigns signs = look_for_text(level ? level->view : view, options.ocr_langs, end);
    const bool shows = signs.timed_out || signs.confident >= k_confident_words || signs.words >= k_any_words;
    return shows ? PhotoLook::text : PhotoLook::no_text;
}

} // namespace extractors

#include "extractors/deskew.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <numbers>

#include <leptonica/allheaders.h>

namespace extractors {

namespace {

// Tesseract's layout analysis (automatic page segmentation) finds no text block at all on a
// page turned a few degrees: a clean page turned 4-10 degrees reads as "Empty page". Pages
// within a degree of level read as they are, so they are left untouched.
constexpr double k_min_degrees = 1.0;
// The search sweeps 15 degrees either way in 1-degree steps, then refines by bisection.
constexpr float k_sweep_range = 15.0F;
constexpr float k_sweep_step = 1.0F;
constexpr float k_min_bisect_delta = 0.01F;
// Leptonica's own deskew acts above a confidence of 3; a little more keeps photos and
// sparse pages (a few words on a picture) as they are.
constexpr float k_min_confidence = 4.0F;
// The line search runs on a copy about this wide: cheap (~20 ms for a 300-dpi page) and
// still with several pixels per text line. Leptonica's own deskew binarises at 130; the
// reduction keeps each block's darkest pixel, so thin strokes survive it.
constexpr int k_search_width = 700;
constexpr l_int32 k_ink_threshold = 130;

struct PixDeleter {
    void operator()(PIX* p) const { pixDestroy(&p); }
};
using Pix = std::unique_ptr<PIX, PixDeleter>;

void quiet() {
    static std::once_flag once;
    std::call_once(once, [] { setMsgSeverity(L_SEVERITY_NONE); });
}

// The grey value of pixel `x` of `row`: the byte itself, or the luminance of RGB with
// Leptonica's (and Tesseract's) weights.
unsigned grey_at(const unsigned char* row, int x, int channels) {
    if (channels == 1) return row[x];
    const unsigned char* p = row + std::size_t(x) * 3;
    return (3U * p[0] + 5U * p[1] + 2U * p[2]) / 10U;
}

// A binary copy of `image` reduced by `factor`, each block its darkest pixel.
Pix reduced_ink(const GreyImage& image, int factor) {
    const int w = std::max(1, image.width / factor);
    const int h = std::max(1, image.height / factor);
    Pix grey(pixCreate(w, h, 8));
    if (!grey) return nullptr;
    l_uint32* data = pixGetData(grey.get());
    const l_int32 wpl = pixGetWpl(grey.get());
    for (int y = 0; y < h; ++y) {
        l_uint32* line = data + std::size_t(y) * std::size_t(wpl);
        for (int x = 0; x < w; ++x) {
            unsigned darkest = 255;
            for (int dy = 0; dy < factor && y * factor + dy < image.height; ++dy) {
                const unsigned char* row =
                    image.data + std::size_t(y * factor + dy) * std::size_t(image.bytes_per_line);
                for (int dx = 0; dx < factor && x * factor + dx < image.width; ++dx) {
                    darkest = std::min(darkest, grey_at(row, x * factor + dx, image.channels));
                }
            }
            SET_DATA_BYTE(line, x, darkest);
        }
    }
    return Pix(pixThresholdToBinary(grey.get(), k_ink_threshold));
}

// The raster as a Leptonica image (8-bit grey or 32-bit RGB).
Pix to_pix(const GreyImage& image) {
    Pix pix(pixCreateNoInit(image.width, image.height, image.channels == 1 ? 8 : 32));
    if (!pix) return nullptr;
    l_uint32* data = pixGetData(pix.get());
    const l_int32 wpl = pixGetWpl(pix.get());
    for (int y = 0; y < image.height; ++y) {
        const unsigned char* row = image.data + std::size_t(y) * std::size_t(image.bytes_per_line);
        l_uint32* line = data + std::size_t(y) * std::size_t(wpl);
        for (int x = 0; x < image.width; ++x) {
            if (image.channels == 1) {
                SET_DATA_BYTE(line, x, row[x]);
            } else {
                const unsigned char* p = row + std::size_t(x) * 3;
                composeRGBPixel(p[0], p[1], p[2], &line[x]);
            }
        }
    }
    return pix;
}

// The Leptonica image back into a raster of `channels` bytes a pixel.
LevelledPage from_pix(PIX* pix, int channels, int dpi) {
    LevelledPage out;
    const int w = static_cast<int>(pixGetWidth(pix));
    const int h = static_cast<int>(pixGetHeight(pix));
    out.pixels.resize(std::size_t(w) * std::size_t(h) * std::size_t(channels));
    const l_uint32* data = pixGetData(pix);
    const l_int32 wpl = pixGetWpl(pix);
    for (int y = 0; y < h; ++y) {
        const l_uint32* line = data + std::size_t(y) * std::size_t(wpl);
        unsigned char* row = out.pixels.data() + std::size_t(y) * std::size_t(w) * std::size_t(channels);
        for (int x = 0; x < w; ++x) {
            if (channels == 1) {
                row[x] = static_cast<unsigned char>(GET_DATA_BYTE(line, x));
            } else {
                l_int32 r = 0, g = 0, b = 0;
                extractRGBValues(line[x], &r, &g, &b);
                row[3 * x] = static_cast<unsigned char>(r);
                row[3 * x + 1] = static_cast<unsigned char>(g);
                row[3 * x + 2] = static_cast<unsigned char>(b);
            }
        }
    }
    out.view = GreyImage{out.pixels.data(), w, h, w * channels, dpi, channels};
    return out;
}

// The clockwise turn in degrees that levels the text lines, or nullopt when unsure.
std::optional<double> skew_of(const GreyImage& image) {
    const int factor = std::max(1, image.width / k_search_width);
    const Pix ink = reduced_ink(image, factor);
    if (!ink) return std::nullopt;
    l_float32 angle = 0, confidence = 0;
    if (pixFindSkewSweepAndSearch(ink.get(), &angle, &confidence, 1, 1, k_sweep_range, k_sweep_step,
                                  k_min_bisect_delta) != 0) {
        return std::nullopt;
    }
    if (confidence < k_min_confidence || std::abs(angle) < k_min_degrees) return std::nullopt;
    return angle;
}

} // namespace

std::optional<LevelledPage> deskewed(const GreyImage& image) {
    if (image.data == nullptr || image.width < 32 || image.height < 32 ||
        (image.channels != 1 && image.channels != 3)) {
        return std::nullopt;
    }
    quiet();
    const std::optional<double> degrees = skew_of(image);
    if (!degrees) return std::nullopt;
    const Pix pix = to_pix(image);
    if (!pix) return std::nullopt;
    // Large enough for the whole turned page, so that no corner of the text is cut off.
    const double radians = *degrees * std::numbers::pi / 180.0;
    const double c = std::abs(std::cos(radians)), s = std::abs(std::sin(radians));
    const auto w = static_cast<l_int32>(std::ceil(image.width * c + image.height * s));
    const auto h = static_cast<l_int32>(std::ceil(image.width * s + image.height * c));
    const Pix turned(pixRotate(pix.get(), static_cast<l_float32>(radians), L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, w, h));
    if (!turned) return std::nullopt;
    LevelledPage out = from_pix(turned.get(), image.channels, image.dpi);
    out.degrees = *degrees;
    return out;
}

} // namespace extractors

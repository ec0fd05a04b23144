#include "extractors/page_share.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <utility>

namespace extractors {
namespace {

struct Slot {
    bool on = false;
    std::optional<PageDrawing> drawing;
};

thread_local Slot t_slot;
std::atomic<std::uint64_t> g_taken{0};

} // namespace

PageDrawing drawing_of_argb(const char* data, int width, int height, int stride, std::vector<unsigned char>* grey) {
    const std::size_t w = static_cast<std::size_t>(width), h = static_cast<std::size_t>(height);
    PageDrawing drawing{std::vector<unsigned char>(w * h * 3), width, height};
    if (grey != nullptr) grey->resize(w * h);
    for (std::size_t y = 0; y < h; ++y) {
        const char* row = data + static_cast<std::ptrdiff_t>(y) * stride;
        unsigned char* rgb = drawing.rgb.data() + y * w * 3;
        for (std::size_t x = 0; x < w; ++x) {
            std::uint32_t pixel = 0;
            std::memcpy(&pixel, row + x * 4, sizeof pixel);
            const unsigned r = (pixel >> 16) & 0xff, g = (pixel >> 8) & 0xff, b = pixel & 0xff;
            rgb[x * 3] = static_cast<unsigned char>(r);
            rgb[x * 3 + 1] = static_cast<unsigned char>(g);
            rgb[x * 3 + 2] = static_cast<unsigned char>(b);
            if (grey != nullptr) (*grey)[y * w + x] = static_cast<unsigned char>((77 * r + 151 * g + 28 * b) >> 8);
        }
    }
    return drawing;
}

FirstPageShare::FirstPageShare(bool both_steps) {
    t_slot = Slot{both_steps, std::nullopt};
}

FirstPageShare::~FirstPageShare() {
    t_slot = Slot{};
}

bool first_page_shared() {
    return t_slot.on;
}

void keep_first_page(PageDrawing drawing) {
    if (t_slot.on) t_slot.drawing = std::move(drawing);
}

std::optional<PageDrawing> take_first_page() {
    std::optional<PageDrawing> taken = std::move(t_slot.drawing);
    t_slot.drawing.reset();
    if (taken) ++g_taken;
    return taken;
}

std::uint64_t first_pages_taken() {
    return g_taken.load();
}

} // namespace extractors

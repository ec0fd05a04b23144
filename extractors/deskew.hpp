#pragma once

#include "extractors/ocr_engine.hpp"

#include <optional>
#include <vector>

namespace extractors {

/// A page turned level: its own pixels, the view of them that OCR reads, and the turn.
struct LevelledPage {
    std::vector<unsigned char> pixels;
    GreyImage view;
    double degrees = 0; // clockwise
};

/// The page `image` turned so that its text lines are level, when they are skewed by at
/// least a degree (up to 15 either way) and Leptonica's line search is confident of the
/// angle; nullopt for a level page, a photo or a blank page. The corners brought in are
/// white and nothing of the page is cut off. Never throws for any raster; thread-safe.
std::optional<LevelledPage> deskewed(const GreyImage& image);

} // namespace extractors

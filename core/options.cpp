#include "core/options.hpp"

namespace core {

std::string_view to_string(OcrMode mode) {
    switch (mode) {
    case OcrMode::force:
        return "force";
    case OcrMode::off:
        return "off";
    case OcrMode::automatic:
        break;
    }
    return "auto";
}

std::optional<OcrMode> parse_ocr_mode(std::string_view text) {
    for (OcrMode mode : {OcrMode::automatic, OcrMode::force, OcrMode::off}) {
        if (text == to_string(mode)) return mode;
    }
    return std::nullopt;
}

} // namespace core

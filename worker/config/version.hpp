#pragma once

#include <string>

namespace worker {

inline constexpr const char* k_version = INGESTD_VERSION;

/// "libvips 8.14.1; poppler 22.12.0": the parser libraries this build was made against.
inline std::string thumbnails_version() {
    return std::string("libvips ") + INGESTD_VIPS_VERSION + "; poppler " + INGESTD_POPPLER_VERSION;
}

} // namespace worker

// tiff_variant_failure(): libtiff is seen by this file only (libvips decodes TIFF pixels).
#include "extractors/image_header.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include <tiffio.h>

namespace extractors {

namespace {

// The bytes libtiff reads through the client procedures below: no file, no mapping.
struct MemoryFile {
    std::span<const unsigned char> bytes;
    toff_t offset = 0;
};

tmsize_t read_proc(thandle_t handle, void* buf, tmsize_t size) {
    auto* f = static_cast<MemoryFile*>(handle);
    if (size <= 0 || f->offset >= f->bytes.size()) return 0;
    const auto n = std::min<toff_t>(toff_t(size), f->bytes.size() - f->offset);
    std::memcpy(buf, f->bytes.data() + f->offset, n);
    f->offset += n;
    return tmsize_t(n);
}

tmsize_t write_proc(thandle_t, void*, tmsize_t) {
    return 0;
}

toff_t seek_proc(thandle_t handle, toff_t offset, int whence) {
    auto* f = static_cast<MemoryFile*>(handle);
    const toff_t base = whence == SEEK_CUR ? f->offset : whence == SEEK_END ? f->bytes.size() : 0;
    f->offset = base + offset;
    return f->offset;
}

int close_proc(thandle_t) {
    return 0;
}

toff_t size_proc(thandle_t handle) {
    return static_cast<MemoryFile*>(handle)->bytes.size();
}

int map_proc(thandle_t, void**, toff_t*) {
    return 0;
}

void unmap_proc(thandle_t, void*, toff_t) {}

// libtiff's errors and warnings about a file stay out of the process's stderr (and out of
// libvips's handlers, which are global): the caller says what is wrong.
int quiet_handler(TIFF*, void*, const char*, const char*, va_list) {
    return 1;
}

struct OptionsFree {
    void operator()(TIFFOpenOptions* o) const { TIFFOpenOptionsFree(o); }
};
struct TiffClose {
    void operator()(TIFF* t) const { TIFFClose(t); }
};

bool is_tiff(std::span<const unsigned char> bytes) {
    return bytes.size() >= 8 && (std::memcmp(bytes.data(), "II", 2) == 0 || std::memcmp(bytes.data(), "MM", 2) == 0);
}

core::Failure unsupported(const std::string& variant) {
    return core::Failure{core::ErrorCode::unsupported_format,
                         "The TIFF image uses " + variant + ", a valid variant this build cannot decode."};
}

} // namespace

std::optional<core::Failure> tiff_variant_failure(std::span<const unsigned char> bytes) {
    if (!is_tiff(bytes)) return std::nullopt;
    const std::unique_ptr<TIFFOpenOptions, OptionsFree> options(TIFFOpenOptionsAlloc());
    if (!options) return std::nullopt;
    TIFFOpenOptionsSetErrorHandlerExtR(options.get(), quiet_handler, nullptr);
    TIFFOpenOptionsSetWarningHandlerExtR(options.get(), quiet_handler, nullptr);
    TIFFOpenOptionsSetMaxSingleMemAlloc(options.get(), 16 << 20);
    MemoryFile file{bytes, 0};
    // "m": no memory mapping. Opening reads the header and the first directory only.
    const std::unique_ptr<TIFF, TiffClose> tiff(TIFFClientOpenExt("image", "rm", &file, read_proc, write_proc,
                                                                  seek_proc, close_proc, size_proc, map_proc,
                                                                  unmap_proc, options.get()));
    if (!tiff) return std::nullopt;
    std::uint16_t compression = COMPRESSION_NONE, photometric = 0;
    TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_COMPRESSION, &compression);
    if (compression == COMPRESSION_OJPEG) {
        return unsupported("old-style JPEG compression (TIFF compression 6)");
    }
    if (TIFFGetField(tiff.get(), TIFFTAG_PHOTOMETRIC, &photometric) == 1 && photometric == PHOTOMETRIC_YCBCR &&
        compression != COMPRESSION_JPEG) {
        std::uint16_t horizontal = 1, vertical = 1;
        TIFFGetFieldDefaulted(tiff.get(), TIFFTAG_YCBCRSUBSAMPLING, &horizontal, &vertical);
        if (horizontal != 1 || vertical != 1) {
            return unsupported("YCbCr colour with chroma subsampling (" + std::to_string(horizontal) + "x" +
                               std::to_string(vertical) + ") outside JPEG compression");
        }
    }
    return std::nullopt;
}

} // namespace extractors

// heif_size_failure(): libheif is seen by this file only.
#include "extractors/image_header.hpp"

#include <cstring>
#include <memory>
#include <string>

#include <libheif/heif.h>

namespace extractors {

namespace {

// libheif refuses, while reading the boxes, an image wider or taller than its limit
// (libvips's loader keeps the default) with a raw "Security limit exceeded" message; for
// the size check itself the limit is lifted, as nothing is decoded here.
constexpr int k_header_side_limit = 1 << 30;

struct ContextFree {
    void operator()(heif_context* c) const { heif_context_free(c); }
};
struct HandleRelease {
    void operator()(heif_image_handle* h) const { heif_image_handle_release(h); }
};

// True when the file starts with an ISO-BMFF `ftyp` box: the only files worth asking libheif.
bool has_ftyp(std::span<const unsigned char> bytes) {
    return bytes.size() >= 12 && std::memcmp(bytes.data() + 4, "ftyp", 4) == 0;
}

} // namespace

core::Failure too_many_pixels_failure(std::uint64_t width, std::uint64_t height, std::uint64_t max_pixels) {
    return core::Failure{core::ErrorCode::too_many_pixels, "The image is " + std::to_string(width) + "x" +
                                                               std::to_string(height) + " pixels, more than the " +
                                                               std::to_string(max_pixels) + " allowed."};
}

std::optional<core::Failure> heif_size_failure(std::span<const unsigned char> bytes, std::uint64_t max_pixels) {
    if (!has_ftyp(bytes)) return std::nullopt;
    const std::unique_ptr<heif_context, ContextFree> context(heif_context_alloc());
    if (!context) return std::nullopt;
    heif_context_set_maximum_image_size_limit(context.get(), k_header_side_limit);
    if (heif_context_read_from_memory_without_copy(context.get(), bytes.data(), bytes.size(), nullptr).code !=
        heif_error_Ok) {
        return std::nullopt;
    }
    heif_image_handle* raw = nullptr;
    if (heif_context_get_primary_image_handle(context.get(), &raw).code != heif_error_Ok || raw == nullptr) {
        return std::nullopt;
    }
    const std::unique_ptr<heif_image_handle, HandleRelease> handle(raw);
    const int width = heif_image_handle_get_width(handle.get());
    const int height = heif_image_handle_get_height(handle.get());
    if (width <= 0 || height <= 0) return std::nullopt;
    if (std::uint64_t(width) * std::uint64_t(height) <= max_pixels) return std::nullopt;
    return too_many_pixels_failure(std::uint64_t(width), std::uint64_t(height), max_pixels);
}

} // namespace extractors

#include "extractors/sniff/ocr_time.hpp"

#include <algorithm>
#include <array>
#include <string>

#include <unistd.h>

namespace extractors {

namespace {

bool starts(std::string_view head, std::string_view magic, std::size_t at = 0) {
    return head.size() >= at + magic.size() && head.substr(at, magic.size()) == magic;
}

bool is_tiff(std::string_view head) {
    return starts(head, std::string_view("II*\0", 4)) || starts(head, std::string_view("MM\0*", 4)) ||
           starts(head, std::string_view("II+\0", 4)) || starts(head, std::string_view("MM\0+", 4)); // BigTIFF
}

bool is_other_image(std::string_view head) {
    static constexpr std::array<std::string_view, 5> k_magic = {"\xFF\xD8\xFF", "\x89PNG\r\n\x1A\n", "GIF87a", "GIF89a",
                                                                "BM"};
    for (const auto m : k_magic) {
        if (starts(head, m)) return true;
    }
    if (starts(head, "RIFF") && starts(head, "WEBP", 8)) return true;
    if (starts(head, "ftyp", 4)) { // ISO media: HEIC, HEIF, AVIF brands
        for (const auto brand : {"heic", "heix", "mif1", "msf1", "avif", "avis", "hevc"}) {
            if (starts(head, brand, 8)) return true;
        }
    }
    return false;
}

} // namespace

bool may_take_ocr_time(std::string_view head, std::uint64_t size) {
    if (head.substr(0, std::min(head.size(), k_ocr_time_head)).find("%PDF-") != std::string_view::npos) return true;
    if (is_tiff(head)) return true;
    return size >= k_slow_image_bytes && is_other_image(head);
}

bool may_take_ocr_time(int fd, std::uint64_t size) {
    std::string head(k_ocr_time_head, '\0');
    const ssize_t n = ::pread(fd, head.data(), head.size(), 0);
    if (n <= 0) return false;
    head.resize(static_cast<std::size_t>(n));
    return may_take_ocr_time(head, size);
}

} // namespace extractors

#include "core/layout.hpp"

namespace core {

std::optional<int> parse_thumbnail_size(std::string_view text) {
    for (int size : k_thumbnail_sizes) {
        if (text == std::to_string(size)) return size;
    }
    return std::nullopt;
}

std::string thumbnail_key(std::string_view file_id, int size) {
    return "thumbnails/" + std::string(file_id) + "/" + std::to_string(size) + ".webp";
}

std::string text_key(std::string_view file_id) {
    return "text/" + std::string(file_id) + ".txt";
}

std::string thumbnail_field(int size) {
    return "thumbnail_" + std::to_string(size) + "_key";
}

std::optional<int> thumbnail_size_of_field(std::string_view field) {
    for (int size : k_thumbnail_sizes) {
        if (field == thumbnail_field(size)) return size;
    }
    return std::nullopt;
}

} // namespace core

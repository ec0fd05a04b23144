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

std::vector<std::string> output_keys(std::string_view file_id) {
    std::vector<std::string> keys;
    for (int size : k_thumbnail_sizes) keys.push_back(thumbnail_key(file_id, size));
    keys.push_back(text_key(file_id));
    return keys;
}

namespace {

// `leaf` without an atomic-write temporary's dressing (".<leaf>.tmp-<suffix>"), `temporary`
// telling whether it had one.
std::string_view undressed(std::string_view leaf, bool& temporary) {
    constexpr std::string_view marker = ".tmp-";
    temporary = false;
    const auto at = leaf.rfind(marker);
    if (leaf.size() < 2 || leaf.front() != '.' || at == std::string_view::npos || at + marker.size() == leaf.size()) {
        return leaf;
    }
    temporary = true;
    return leaf.substr(1, at - 1);
}

} // namespace

std::optional<std::string> output_owner(std::string_view key, bool* temporary) {
    bool temp = false;
    std::optional<std::string> id;
    if (key.starts_with("text/") && key.find('/', 5) == std::string_view::npos) {
        const std::string_view leaf = undressed(key.substr(5), temp);
        if (leaf.ends_with(".txt") && leaf.size() > 4) id = std::string(leaf.substr(0, leaf.size() - 4));
    } else if (key.starts_with("thumbnails/")) {
        const std::string_view rest = key.substr(11);
        const auto slash = rest.find('/');
        if (slash != std::string_view::npos && slash > 0 && rest.find('/', slash + 1) == std::string_view::npos) {
            const std::string_view leaf = undressed(rest.substr(slash + 1), temp);
            for (int size : k_thumbnail_sizes) {
                if (leaf == std::to_string(size) + ".webp") id = std::string(rest.substr(0, slash));
            }
        }
    }
    if (id && temporary) *temporary = temp;
    return id;
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

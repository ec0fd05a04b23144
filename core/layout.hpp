#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

/// The thumbnail boxes of the spec, smallest first.
inline constexpr std::array<int, 3> k_thumbnail_sizes{72, 144, 288};

/// The size of `text` ("144") when it is one of k_thumbnail_sizes, else nullopt.
std::optional<int> parse_thumbnail_size(std::string_view text);

/// Storage key of a thumbnail: `thumbnails/<file_id>/<size>.webp`.
std::string thumbnail_key(std::string_view file_id, int size);

/// Storage key of a file's whole text when it did not fit inline: `text/<file_id>.txt`.
std::string text_key(std::string_view file_id);

/// Every output key a file can have: its thumbnails, then its spilled text.
std::vector<std::string> output_keys(std::string_view file_id);

/// The file id whose output `key` is (`thumbnails/<id>/<size>.webp`, `text/<id>.txt`, or an
/// atomic-write temporary of one, `.<leaf>.tmp-…` in the same folder), with `temporary` set
/// for the latter; nullopt for any other key.
std::optional<std::string> output_owner(std::string_view key, bool* temporary = nullptr);

/// Metadata field that holds a thumbnail's key: `thumbnail_<size>_key`.
std::string thumbnail_field(int size);

/// The size named by a `thumbnail_<size>_key` field, or nullopt for any other field.
std::optional<int> thumbnail_size_of_field(std::string_view field);

} // namespace core

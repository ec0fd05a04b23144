#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace worker::cli {

/// Prints `object` as one compact JSON line on stdout and flushes (invalid UTF-8 replaced).
void print_json(const nlohmann::ordered_json& object);

/// A metadata object: `file_id` first (when not empty), then `fields` in order, without any
/// `file_id` among them.
nlohmann::ordered_json metadata_object(const std::string& file_id,
                                       const std::vector<std::pair<std::string, std::string>>& fields);

} // namespace worker::cli

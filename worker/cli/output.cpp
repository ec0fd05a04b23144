#include "worker/cli/output.hpp"

#include <cstdio>

namespace worker::cli {

void print_json(const nlohmann::ordered_json& object) {
    std::string line = object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

nlohmann::ordered_json metadata_object(const std::string& file_id,
                                       const std::vector<std::pair<std::string, std::string>>& fields) {
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    if (!file_id.empty()) object["file_id"] = file_id;
    for (const auto& [k, v] : fields) {
        if (k != "file_id") object[k] = v;
    }
    return object;
}

} // namespace worker::cli

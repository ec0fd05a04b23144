#include "worker/cli/output.hpp"

#include <cstdio>
#include <string>

namespace worker::cli {

namespace {

// U+2028 and U+2029 are valid raw in JSON strings, but consumers that split lines on
// Unicode separators (JavaScript before ES2019, many log shippers) break on them: escaped.
std::string escape_separators(std::string line) {
    for (std::size_t at = line.find("\xE2\x80"); at != std::string::npos; at = line.find("\xE2\x80", at + 1)) {
        if (at + 2 >= line.size()) break;
        const unsigned char third = static_cast<unsigned char>(line[at + 2]);
        if (third != 0xA8 && third != 0xA9) continue;
        line.replace(at, 3, third == 0xA8 ? "\\u2028" : "\\u2029");
    }
    return line;
}

} // namespace

void print_json(const nlohmann::ordered_json& object) {
    std::string line = escape_separators(object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
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

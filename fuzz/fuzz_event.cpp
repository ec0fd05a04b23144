// Stream entries as a producer could write them: NUL-separated field names and values.
#include "jobs/event.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> parts(1);
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            parts.emplace_back();
        } else {
            parts.back().push_back(static_cast<char>(data[i]));
        }
    }
    std::vector<std::pair<std::string, std::string>> fields;
    for (std::size_t i = 0; i + 1 < parts.size(); i += 2) fields.emplace_back(parts[i], parts[i + 1]);
    auto parsed = jobs::parse_event("1-0", fields);
    (void)parsed;
    return 0;
}

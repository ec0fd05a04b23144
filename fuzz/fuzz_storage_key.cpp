// Storage keys and file ids: a key the validator accepts must be what the spec allows, so
// that joining it to the storage root cannot leave the root.
#include "jobs/event.hpp"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

bool spec_allows(const std::string& key) {
    if (key.empty() || key.size() > 1024) return false;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = key.find('/', start);
        const std::string seg = key.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (seg.empty() || seg == "." || seg == "..") return false;
        for (char c : seg) {
            const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                            c == '_' || c == '-';
            if (!ok) return false;
        }
        if (end == std::string::npos) return true;
        start = end + 1;
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string key(reinterpret_cast<const char*>(data), size);
    if (jobs::storage_key_problem(key).empty() != spec_allows(key)) std::abort();
    (void)jobs::valid_file_id(key);
    return 0;
}

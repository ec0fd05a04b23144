#include "worker/helper/proc_status.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace worker {

std::uint64_t proc_status_bytes(pid_t pid, const char* key) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(in, line)) {
        if (line.compare(0, n, key) == 0) return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
    }
    return 0;
}

} // namespace worker

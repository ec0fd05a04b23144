#include "worker/helper/process/decode_gate.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace worker {
namespace {

int g_gate_fd = -1; // the helper's own open file description of the worker's gate file

} // namespace

bool open_decode_gate(const std::filesystem::path& path) {
    if (path.empty()) return true;
    g_gate_fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    return g_gate_fd >= 0;
}

LargeDecodeHold::LargeDecodeHold(std::uint64_t need_bytes) {
    if (g_gate_fd < 0 || need_bytes <= k_large_decode_bytes) return;
    const auto start = std::chrono::steady_clock::now();
    int rc = 0;
    while ((rc = ::flock(g_gate_fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    // A gate that cannot be taken (it never fails on a regular file) costs memory, not the job.
    m_held = rc == 0;
    m_waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
}

LargeDecodeHold::~LargeDecodeHold() {
    if (m_held) ::flock(g_gate_fd, LOCK_UN);
}

} // namespace worker

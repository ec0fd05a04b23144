#include "worker/helper/pool.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

namespace worker {

HelperPool::HelperPool(HelperSettings settings) : m_settings(std::move(settings)) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ingestd-helpers-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
        throw std::runtime_error(std::string("cannot create the helpers' scratch folder: ") + std::strerror(errno));
    }
    m_root = tmpl;
    // The large-decode gate its helpers share (worker/helper/process/decode_gate.hpp).
    const std::filesystem::path gate = m_root / "decode.lock";
    const int fd = ::open(gate.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        m_settings.decode_lock = gate.string();
    }
    // The OCR threads its idle slots lend (worker/helper/thread_share.hpp).
    try {
        const std::filesystem::path share = m_root / "threads.share";
        m_settings.thread_share = std::make_shared<ThreadShare>(share, true);
        m_settings.thread_share_path = share.string();
    } catch (const std::system_error&) {
        // Each job then reads with the threads it was given at its start.
    }
    m_cold_settings = m_settings;
    m_cold_settings.warm_parsers = false;
}

HelperPool::~HelperPool() {
    std::error_code ec;
    std::filesystem::remove_all(m_root, ec);
}

std::unique_ptr<Helper> HelperPool::make(bool warm) {
    const int slot = m_next++;
    return std::make_unique<Helper>(warm ? m_settings : m_cold_settings, m_root / std::to_string(slot), slot);
}

} // namespace worker

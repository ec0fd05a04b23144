#include "worker/helper/thread_share.hpp"

#include "core/fd.hpp"

#include <cerrno>
#include <system_error>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace worker {

ThreadShare::ThreadShare(const std::filesystem::path& path, bool create) {
    const core::Fd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0), 0600));
    if (!fd) throw std::system_error(errno, std::generic_category(), "open " + path.string());
    if (create && ::ftruncate(fd.get(), sizeof(Block)) != 0) {
        throw std::system_error(errno, std::generic_category(), "ftruncate " + path.string());
    }
    void* p = ::mmap(nullptr, sizeof(Block), PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
    if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap " + path.string());
    m_block = static_cast<Block*>(p); // zero-filled when created: nothing spare, nothing lent
}

ThreadShare::~ThreadShare() {
    ::munmap(m_block, sizeof(Block));
}

void ThreadShare::set_spare(int threads) {
    m_block->spare = threads;
}

void ThreadShare::forget(int slot) {
    if (slot < 0 || slot >= k_share_slots) return;
    m_block->lent -= m_block->lent_by[slot].exchange(0);
}

bool ThreadShare::borrow(int slot) {
    if (slot < 0 || slot >= k_share_slots) return false;
    int lent = m_block->lent;
    while (lent < m_block->spare) {
        if (m_block->lent.compare_exchange_weak(lent, lent + 1)) {
            ++m_block->lent_by[slot];
            return true;
        }
    }
    return false;
}

void ThreadShare::give_back(int slot) {
    if (slot < 0 || slot >= k_share_slots) return;
    --m_block->lent_by[slot];
    --m_block->lent;
}

bool ThreadShare::over_lent() const {
    return m_block->lent > m_block->spare;
}

int ThreadShare::lent() const {
    return m_block->lent;
}

} // namespace worker

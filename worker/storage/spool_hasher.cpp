#include "worker/storage/spool_hasher.hpp"

#include "core/file_error.hpp"
#include "worker/storage/spool.hpp"

#include <cstring>

#include <openssl/evp.h>

namespace worker {
namespace {

EVP_MD_CTX* ctx_of(void* p) {
    return static_cast<EVP_MD_CTX*>(p);
}

} // namespace

SpoolHasher::SpoolHasher(int fd, std::uint64_t expected_size) : m_fd(fd), m_ctx(EVP_MD_CTX_new()) {
    EVP_DigestInit_ex(ctx_of(m_ctx), EVP_sha256(), nullptr);
    if (expected_size < k_overlap_from) return;
    for (std::size_t i = 0; i < k_buffers; ++i) m_free.push_back(Chunk{std::make_unique<char[]>(k_chunk)});
    m_filling = std::move(m_free.back());
    m_free.pop_back();
    m_thread = std::thread([this] { consume(); });
}

SpoolHasher::~SpoolHasher() {
    if (m_thread.joinable()) {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    EVP_MD_CTX_free(ctx_of(m_ctx));
}

void SpoolHasher::write_and_hash(const char* data, std::size_t size, std::uint64_t offset) {
    spool_write(m_fd, data, size, offset);
    EVP_DigestUpdate(ctx_of(m_ctx), data, size);
}

bool SpoolHasher::add(const char* data, std::size_t size) {
    if (!overlapped()) {
        try {
            write_and_hash(data, size, m_end);
        } catch (const core::FileError& e) {
            m_error = e.what();
            return false;
        }
        m_end += size;
        return true;
    }
    while (size > 0) {
        if (m_filling.size == k_chunk) hand_over();
        if (m_failed) return false;
        const std::size_t take = std::min(size, k_chunk - m_filling.size);
        std::memcpy(m_filling.data.get() + m_filling.size, data, take);
        m_filling.size += take;
        m_end += take;
        data += take;
        size -= take;
    }
    return !m_failed;
}

// The filled buffer goes to the writer; the next free one (waiting for it) becomes the filling one.
void SpoolHasher::hand_over() {
    std::unique_lock lock(m_mutex);
    if (m_filling.size > 0) {
        m_full.push_back(std::move(m_filling));
        m_changed.notify_all();
    }
    m_changed.wait(lock, [&] { return !m_free.empty() || m_failed; });
    if (m_free.empty()) { // failed: keep a buffer to fill, whose bytes are dropped
        m_filling = Chunk{std::make_unique<char[]>(k_chunk)};
    } else {
        m_filling = std::move(m_free.back());
        m_free.pop_back();
    }
    m_filling.size = 0;
    m_filling.offset = m_end;
}

void SpoolHasher::consume() {
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_changed.wait(lock, [&] { return m_stop || !m_full.empty(); });
        if (m_full.empty()) return; // stopping, nothing left
        Chunk c = std::move(m_full.front());
        m_full.erase(m_full.begin());
        m_busy = true;
        lock.unlock();
        std::string error;
        try {
            if (!m_failed) write_and_hash(c.data.get(), c.size, c.offset);
        } catch (const core::FileError& e) {
            error = e.what();
        }
        lock.lock();
        if (!error.empty() && !m_failed) {
            m_failed = true;
            m_error = error;
        }
        m_busy = false;
        m_free.push_back(std::move(c));
        m_changed.notify_all();
    }
}

void SpoolHasher::drain() {
    if (!overlapped()) return;
    hand_over();
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_full.empty() && !m_busy; });
}

void SpoolHasher::restart() {
    drain();
    m_end = 0;
    m_filling.offset = 0;
    EVP_DigestInit_ex(ctx_of(m_ctx), EVP_sha256(), nullptr);
}

std::string SpoolHasher::finish() {
    drain();
    if (m_failed || !m_error.empty()) {
        throw core::FileError(core::ErrorCode::storage_error, m_error, true);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_of(m_ctx), md, &len);
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned int i = 0; i < len; ++i) s += {digits[md[i] >> 4], digits[md[i] & 15]};
    return s;
}

} // namespace worker

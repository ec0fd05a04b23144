#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace worker {

/// Writes a download's bytes, in order, into a spool and computes their SHA-256. For a large
/// object the write and the hash run on a thread of their own, overlapped with the download
/// (as `curl | openssl dgst` overlaps them in two processes): the receiving thread only copies
/// each piece into one of a few fixed buffers (memory stays bounded). A small object is
/// written and hashed on the caller's thread. Not thread-safe: one download's thread calls it.
class SpoolHasher {
public:
    /// Overlapped when `expected_size` is at least `k_overlap_from` bytes.
    SpoolHasher(int fd, std::uint64_t expected_size);
    ~SpoolHasher();
    SpoolHasher(const SpoolHasher&) = delete;
    SpoolHasher& operator=(const SpoolHasher&) = delete;

    static constexpr std::size_t k_chunk = 4u << 20;          ///< one buffer
    static constexpr std::size_t k_buffers = 4;               ///< at most this many in flight
    static constexpr std::uint64_t k_overlap_from = 8u << 20; ///< smaller objects: inline

    /// Appends `size` bytes at the current end; false when the spool cannot be written (the
    /// download stops; error() says why).
    bool add(const char* data, std::size_t size);
    /// Everything added is dropped: the bytes start again at offset 0.
    void restart();
    /// Waits for every byte to be written and hashed; the SHA-256 (lowercase hex), or throws
    /// core::FileError (storage_error, transient) when a write failed.
    std::string finish();
    bool overlapped() const { return m_thread.joinable(); }

private:
    struct Chunk {
        std::unique_ptr<char[]> data;
        std::size_t size = 0;
        std::uint64_t offset = 0;
    };
    void consume();
    void write_and_hash(const char* data, std::size_t size, std::uint64_t offset);
    void hand_over();
    void drain();

    int m_fd;
    std::uint64_t m_end = 0; // bytes added so far (the next offset)
    void* m_ctx;             // EVP_MD_CTX
    std::string m_error;

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::vector<Chunk> m_free, m_full; // m_full: oldest first
    Chunk m_filling;
    bool m_busy = false, m_stop = false, m_failed = false;
    std::thread m_thread;
};

} // namespace worker

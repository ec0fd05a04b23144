#pragma once

#include <atomic>
#include <filesystem>

namespace worker {

/// Helper slots whose borrowing is tracked (one per job thread of a worker; more borrow nothing).
inline constexpr int k_share_slots = 64;

/// The OCR threads that a worker's idle job slots leave to its running jobs, in a small file
/// its helpers map (opened before their sandbox): the worker says how many its idle slots
/// leave (`spare`), a helper reading a long scan borrows one per thread it adds and gives it
/// back after, and the worker takes back what a helper that stopped had borrowed.
class ThreadShare {
public:
    /// Maps the file at `path`; the worker creates it (`create`). Throws std::system_error.
    ThreadShare(const std::filesystem::path& path, bool create);
    ~ThreadShare();
    ThreadShare(const ThreadShare&) = delete;
    ThreadShare& operator=(const ThreadShare&) = delete;

    /// The worker: its idle slots now leave `threads` threads.
    void set_spare(int threads);
    /// The worker: the helper of `slot` stopped; what it had borrowed is free again.
    void forget(int slot);

    /// A helper: one thread more for `slot` when the idle slots leave one; true when lent.
    bool borrow(int slot);
    /// A helper: gives back one thread `slot` borrowed.
    void give_back(int slot);
    /// More threads are lent than the idle slots leave now.
    bool over_lent() const;
    /// Threads lent now (for tests).
    int lent() const;

private:
    struct Block {
        std::atomic<int> spare;
        std::atomic<int> lent;
        std::atomic<int> lent_by[k_share_slots];
    };
    static_assert(std::atomic<int>::is_always_lock_free, "the block is shared between processes");
    Block* m_block = nullptr;
};

} // namespace worker

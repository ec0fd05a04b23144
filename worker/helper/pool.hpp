#pragma once

// The door of the helper room: the pool, the Helper it makes and the OnDemandHelper of
// `ingestd process`, with their settings.
#include "worker/helper/helper.hpp"
#include "worker/helper/on_demand_helper.hpp"
#include "worker/helper/settings.hpp"

#include <atomic>
#include <filesystem>
#include <memory>

namespace worker {

/// Starts helper processes: one per job thread, each with its own scratch folder under a
/// private temporary folder that the pool removes. Thread-safe.
class HelperPool {
public:
    /// Creates the private temporary folder; throws std::runtime_error when it cannot.
    explicit HelperPool(HelperSettings settings);
    ~HelperPool();
    HelperPool(const HelperPool&) = delete;
    HelperPool& operator=(const HelperPool&) = delete;

    /// A new helper handle for one thread; its process starts at once, with its parsers run
    /// once before its first job when `warm` (the fast lane's loads what its first small file
    /// needs when it comes). Throws std::runtime_error when the process cannot start.
    std::unique_ptr<Helper> make(bool warm = true);

    /// The OCR threads its idle slots lend its helpers; nullptr when it could not be made.
    ThreadShare* thread_share() const { return m_settings.thread_share.get(); }

    /// The settings every helper of this pool starts with.
    const HelperSettings& settings() const { return m_settings; }

private:
    HelperSettings m_settings;
    HelperSettings m_cold_settings; // the same without the parsers' warm-up
    std::filesystem::path m_root;
    std::atomic<int> m_next{0};
};

} // namespace worker

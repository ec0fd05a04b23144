#pragma once

#include "worker/storage/store.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace testsupport {

/// A worker::Store kept in memory: the second implementation of the storage seam. Inputs
/// are served as memfd descriptors with their size; every write, copy and removal is
/// recorded so that a test can tell what went through the interface. Thread-safe.
class MemoryStore : public worker::Store {
public:
    /// Stores `bytes` under `key` (an upload, or an output a test plants) without recording it.
    void put(const std::string& key, std::string bytes);

    /// The bytes stored under `key`, or nullopt.
    std::optional<std::string> get(const std::string& key) const;

    /// Keys written through write() or write_from(), in order.
    std::vector<std::string> writes() const;
    /// (from, to) of every copy(), in order.
    std::vector<std::pair<std::string, std::string>> copies() const;
    /// Keys passed to remove(), in order.
    std::vector<std::string> removals() const;
    /// Keys opened with open_input(), in order.
    std::vector<std::string> opened() const;
    /// Forgets what was recorded (writes, copies, removals, opens); the objects stay.
    void clear_records();

    Input open_input(const std::string& key, std::uint64_t max_bytes) const override;
    void write(const std::string& key, std::string_view bytes) const override;
    void write_from(const std::string& key, int fd) const override;
    void copy(const std::string& from, const std::string& to) const override;
    void remove(const std::string& key) const override;
    void list(const std::string& prefix, const std::function<void(const std::string& key)>& visit) const override;
    std::string describe(const std::string& key) const override;

private:
    // The Store interface is const (a store is shared by the job threads); what it holds
    // and records changes under the mutex.
    mutable std::mutex m_mu;
    mutable std::map<std::string, std::string> m_objects;
    mutable std::vector<std::string> m_writes;
    mutable std::vector<std::pair<std::string, std::string>> m_copies;
    mutable std::vector<std::string> m_removals;
    mutable std::vector<std::string> m_opened;
};

} // namespace testsupport

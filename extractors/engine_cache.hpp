#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <utility>

namespace extractors {

/// A small least-recently-used cache of engines by key (an OCR language set, "eng+deu"): at
/// most `capacity` engines live; making room destroys the one used longest ago. Not
/// thread-safe: one cache per thread (ocr_engine.cpp keeps one thread_local).
template <typename Engine> class EngineCache {
public:
    explicit EngineCache(std::size_t capacity) : m_capacity(capacity == 0 ? 1 : capacity) {}

    /// The engine for `key`, made by `make()` (a std::unique_ptr<Engine>, null on failure)
    /// when not cached; nullptr when `make` failed (nothing is cached then). The reference
    /// stays valid until `capacity` other keys have been asked for.
    template <typename Make> Engine* get(const std::string& key, Make&& make) {
        for (auto it = m_entries.begin(); it != m_entries.end(); ++it) {
            if (it->first == key) {
                m_entries.splice(m_entries.begin(), m_entries, it);
                return m_entries.front().second.get();
            }
        }
        std::unique_ptr<Engine> engine = std::forward<Make>(make)();
        if (!engine) return nullptr;
        while (m_entries.size() >= m_capacity) m_entries.pop_back(); // least recently used
        m_entries.emplace_front(key, std::move(engine));
        return m_entries.front().second.get();
    }

    std::size_t size() const { return m_entries.size(); }
    std::size_t capacity() const { return m_capacity; }
    bool contains(const std::string& key) const {
        for (const auto& entry : m_entries) {
            if (entry.first == key) return true;
        }
        return false;
    }

private:
    std::size_t m_capacity;
    std::list<std::pair<std::string, std::unique_ptr<Engine>>> m_entries; // most recent first
};

} // namespace extractors

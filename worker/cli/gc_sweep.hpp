#pragma once

#include "jobs/deletion.hpp"
#include "worker/storage/store.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace worker::cli {

/// What `ingestd gc` is told.
struct GcOptions {
    double grace_s = 0;   ///< originals of files deleted longer ago than this go
    bool dry_run = false; ///< print what would go, remove nothing
    /// Atomic-write temporaries older than this go: a live write lasts seconds, so one this
    /// old was left by a process that died.
    std::chrono::seconds temp_age{3600};
};

/// One garbage collection over a store and its metadata, in two streamed passes with
/// bounded memory (one SCAN batch, then one listing batch at a time): originals of files
/// deleted past the grace, then outputs and temporaries that no live metadata refers to.
/// Prints one JSON object per removal and logs each. Safe beside workers and other
/// collectors: outputs of pending or processing files are never touched, a tombstone's
/// storage_key is dropped only if it is still the same tombstone, and removing a key twice
/// is not an error. Throws jobs::RedisIoError, jobs::RedisReplyError, core::FileError.
class GcSweep {
public:
    GcSweep(jobs::Redis& redis, const jobs::QueueNames& names, const Store& store, GcOptions options);

    /// Removes the original bytes of tombstones older than the grace.
    void originals();
    /// Removes orphaned outputs and old temporaries under thumbnails/ and text/.
    void outputs();

    /// Removals so far, by kind: original, output, temporary.
    long long removed(const std::string& kind) const;

private:
    struct Candidate {
        std::string key;
        std::string file_id;
    };

    void visit_output(const std::string& key);
    void judge_outputs();
    void remove_originals();
    void report(const char* kind, const std::string& key, const std::string& file_id);

    jobs::Redis& m_redis;
    const jobs::QueueNames& m_names;
    const Store& m_store;
    GcOptions m_options;
    std::vector<jobs::Tombstone> m_tombstones;
    std::vector<Candidate> m_outputs;
    std::vector<std::pair<std::string, long long>> m_removed;
};

} // namespace worker::cli

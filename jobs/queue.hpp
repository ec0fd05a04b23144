#pragma once

#include "jobs/event.hpp"
#include "jobs/redis.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace jobs {

/// Names of everything ingestd touches in Redis.
struct QueueNames {
    std::string stream = "ingest:uploads";
    std::string group = "ingestd";
    std::string consumer;
    std::string prefix = "ingest:";

    std::string dead_stream() const { return stream + ":dead"; }
    std::string results_stream() const { return prefix + "results"; }
    std::string status_channel() const { return prefix + "status"; }
    std::string metadata_key(const std::string& file_id) const { return prefix + "file:" + file_id; }
    std::string hash_index_key(const std::string& sha256) const { return prefix + "hash:" + sha256; }
};

/// One stream entry handed to this consumer.
struct Delivery {
    std::string entry_id;
    std::vector<std::pair<std::string, std::string>> fields;
    long long deliveries = 1; // from XPENDING; XREADGROUP of a new entry is always 1
};

/// The outcome of a fenced write.
enum class Fence {
    ok,            // written (and acknowledged, for a final commit)
    lost,          // this consumer no longer owns the entry: nothing written, not acknowledged
    superseded,    // a newer event for the file_id exists: only acknowledged
    already_final, // this very event is already final: only acknowledged
};

const char* to_string(Fence f);

/// The stream side of the contract: group, reads, reclaims, leases, dead letters and the
/// fenced metadata writes. Stateless apart from names: every call takes the caller's
/// connection (one per thread). Throws RedisIoError on connection failures; Redis error
/// replies other than the handled ones become std::runtime_error.
class Queue {
public:
    explicit Queue(QueueNames names);

    const QueueNames& names() const { return m_names; }

    /// XGROUP CREATE ... $ MKSTREAM at id 0; an existing group is fine.
    void ensure_group(Redis& redis) const;

    /// XREADGROUP for up to `count` new entries, blocking up to `block`. Recreates a vanished
    /// group (and says so through `recreated`).
    std::vector<Delivery> read(Redis& redis, int count, std::chrono::milliseconds block,
                               bool* recreated = nullptr) const;

    /// XAUTOCLAIM of up to `count` entries idle longer than `min_idle`, with their delivery
    /// counts from XPENDING. Entries deleted from the stream are dropped by Redis. With
    /// `cursor`, the scan of the pending list resumes where the previous call stopped (start
    /// at "0-0"; it comes back to "0-0" after a full pass).
    std::vector<Delivery> reclaim(Redis& redis, int count, std::chrono::milliseconds min_idle,
                                  std::string* cursor = nullptr) const;

    /// Renews the lease of each entry this consumer still owns (XCLAIM ... JUSTID to itself);
    /// returns the ids it no longer owns.
    std::vector<std::string> renew(Redis& redis, const std::vector<std::string>& entry_ids) const;

    /// Writes `status=processing` and `fields` if this consumer owns the entry and no newer
    /// event for the file was seen; acknowledges a superseded or already final entry.
    Fence start(Redis& redis, const std::string& entry_id, const std::string& file_id,
                const std::vector<std::pair<std::string, std::string>>& fields) const;

    /// The final write: deletes `clear`, sets `fields` (which include `status`), appends to
    /// the results stream, publishes, and acknowledges, atomically, under the same fence.
    /// With `index_sha256` set (a done file), records hash -> file_id for deduplication.
    Fence commit(Redis& redis, const std::string& entry_id, const std::string& file_id,
                 const std::vector<std::pair<std::string, std::string>>& fields, const std::vector<std::string>& clear,
                 const std::string& index_sha256 = {}) const;

    /// Copies the entry to the dead-letter stream with `reason`, then (when it has a valid
    /// file_id and is not superseded) ends its metadata failed/gave_up, then acknowledges.
    Fence dead_letter(Redis& redis, const Delivery& delivery, const std::string& file_id, const std::string& reason,
                      bool give_up, const std::vector<std::pair<std::string, std::string>>& fields) const;

    /// Trims the stream below the oldest entry that some group still needs (its oldest
    /// pending entry, or the one after its last delivered entry), never plain MAXLEN, and only
    /// when the stream holds more than `min_length` entries; entries younger than `keep`
    /// (by the server's clock) are kept too. Returns the number of entries removed (0 when
    /// there was nothing to do). Throws RedisIoError.
    long long trim(Redis& redis, long long min_length, std::chrono::milliseconds keep) const;

    /// Total XPENDING count of the group and its lag (XINFO GROUPS), for metrics.
    std::pair<long long, long long> pending_and_lag(Redis& redis) const;

private:
    QueueNames m_names;
};

/// RFC 3339 UTC with milliseconds, "2026-12-02T17:30:22.123Z".
std::string utc_now_rfc3339();

} // namespace jobs

#pragma once

#include "jobs/event.hpp"
#include "jobs/fence.hpp"
#include "jobs/queue_names.hpp"
#include "jobs/redis.hpp"
#include "jobs/timestamp.hpp"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace jobs {

/// One stream entry handed to this consumer.
struct Delivery {
    std::string entry_id;
    std::vector<std::pair<std::string, std::string>> fields;
    long long deliveries = 1; // from XPENDING; XREADGROUP of a new entry is always 1
};

/// The stream side of the contract: group, reads, reclaims, leases, dead letters and the
/// fenced metadata writes. Stateless apart from names: every call takes the caller's
/// connection (one per thread). Throws RedisIoError on connection failures; Redis error
/// replies other than the handled ones become RedisReplyError.
///
/// Its members are defined by subject: queue.cpp (group, reads, reclaims, leases, counts),
/// fenced_writes.cpp (processing write, final commit, dead letter), stream_trim.cpp.
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
    /// returns the ids it no longer owns (all of them when the group is gone).
    std::vector<std::string> renew(Redis& redis, const std::vector<std::string>& entry_ids) const;

    /// Hands back each entry this consumer still owns: it stays pending, but looks idle for
    /// far longer than any claim timeout, so the next reclaim (of any worker) takes it at
    /// once. Fenced like renew(); returns the ids it no longer owned.
    std::vector<std::string> release(Redis& redis, const std::vector<std::string>& entry_ids) const;

    /// Writes `status=processing` and `fields` if this consumer owns the entry and no newer
    /// event for the file was seen; acknowledges a superseded or already final entry.
    Fence start(Redis& redis, const std::string& entry_id, const std::string& file_id,
                const std::vector<std::pair<std::string, std::string>>& fields) const;

    /// A job's fast results before its final commit (a scan's thumbnails while its OCR goes
    /// on): deletes `clear` and sets `fields` under the same fence as start(), leaving `status`
    /// processing; nothing is announced, nothing acknowledged.
    Fence progress(Redis& redis, const std::string& entry_id, const std::string& file_id,
                   const std::vector<std::pair<std::string, std::string>>& fields,
                   const std::vector<std::string>& clear) const;

    /// The final write: deletes `clear`, sets `fields` (which include `status`), appends to
    /// the results stream, publishes, and acknowledges, atomically, under the same fence.
    /// With `index_sha256` set (a done file), records hash -> file_id for deduplication.
    Fence commit(Redis& redis, const std::string& entry_id, const std::string& file_id,
                 const std::vector<std::pair<std::string, std::string>>& fields, const std::vector<std::string>& clear,
                 const std::string& index_sha256 = {}) const;

    /// The delete event's write, under the same fence as a commit: the metadata becomes a
    /// tombstone (see delete_script), the hash index stops naming the file, `results` and the
    /// channel are told `deleted`, and the entry is acknowledged. `storage_key` (may be empty)
    /// is recorded when the metadata names none, for the garbage collector.
    Fence tombstone(Redis& redis, const std::string& entry_id, const std::string& file_id,
                    const std::string& deleted_at, const std::string& storage_key) const;

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

    /// Total XPENDING count of the group and its lag (XINFO GROUPS), for metrics; zeros when
    /// the stream or the group does not exist.
    std::pair<long long, long long> pending_and_lag(Redis& redis) const;

    /// Entries of the dead-letter stream (XLEN; 0 when it does not exist).
    long long dead_letter_count(Redis& redis) const;

private:
    std::vector<std::string> set_idle(Redis& redis, const std::vector<std::string>& entry_ids,
                                      std::chrono::milliseconds idle) const;

    QueueNames m_names;
};

} // namespace jobs

#pragma once

#include "jobs/metadata.hpp"
#include "jobs/queue.hpp"
#include "jobs/redis.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

// The operator's side of the Redis contract: what the `ingestd` commands other than
// `worker` do to the stream, the dead-letter stream and the metadata. Every function takes
// the caller's connection (one per thread) and throws RedisIoError when Redis cannot be
// reached.
namespace jobs {

/// True when the metadata's `status` is final (`done` or `failed`), or `deleted` (nothing
/// more will happen to it unless it is uploaded again).
bool is_final(const Fields& metadata);

/// True when the file or one of its steps failed (`status`, `extraction_status` or
/// `thumbnail_status` is `failed`).
bool has_failure(const Fields& metadata);

/// Reads the metadata of `file_id` every 100 ms until it exists and is final or `deadline`
/// passes; returns the last metadata read, nullopt when the hash did not exist then.
std::optional<Fields> wait_until_final(Redis& redis, const QueueNames& names, const std::string& file_id,
                                       std::chrono::steady_clock::time_point deadline);

/// A file already in storage that Redis does not know yet: what `ingestd submit` writes.
struct NewFile {
    std::string file_id;
    std::string storage_key;
    std::string name;
    std::uint64_t size = 0;
    std::string steps;        // normalised, "text,thumbnails"
    std::string submitted_at; // RFC 3339
    std::string ocr_langs;    // the event's ocr_langs; empty: not on the event
};

/// The outcome of a transaction that Redis may refuse as a whole.
struct Appended {
    std::string entry_id; // the new stream entry, when appended
    std::string refusal;  // Redis's error text or "transaction failed", when refused

    bool ok() const { return refusal.empty(); }
};

/// In one transaction, writes the `pending` metadata of `file`, appends its event to the
/// stream and a `pending` line to the results stream; then publishes the `pending` status.
Appended append_new_file(Redis& redis, const QueueNames& names, const NewFile& file);

/// One entry of the dead-letter stream.
struct DeadLetter {
    std::string dead_id; // its id in the dead-letter stream
    Fields fields;       // the event's fields, then dead_reason, dead_deliveries, dead_source_id
};

/// Every entry of the dead-letter stream, oldest first. Throws RedisReplyError when Redis
/// refuses the read.
std::vector<DeadLetter> list_dead_letters(Redis& redis, const QueueNames& names);

/// In one transaction, appends the event of `letter` (without its dead_* fields) to the
/// stream and deletes `letter` from the dead-letter stream.
Appended requeue_dead_letter(Redis& redis, const QueueNames& names, const DeadLetter& letter);

/// The file ids that still have a live entry in the stream: not yet delivered to the
/// group, or delivered and pending (not acknowledged).
std::set<std::string> file_ids_in_stream(Redis& redis, const QueueNames& names);

/// A file whose metadata says `pending` or `processing` and names its storage_key.
struct UnfinishedFile {
    std::string file_id;
    std::string status;
    std::string storage_key;
    std::string steps;
    std::string declared_content_type;
    std::string name;
    std::string owner;
    std::string since;     // processing: started_at, pending: submitted_at (the other when absent)
    std::string ocr_langs; // the event's ocr_langs, when it named its own
};

/// Scans every metadata hash, a batch at a time, and calls `visit` for each unfinished file
/// without holding the whole listing; a file may be visited twice (as SCAN may return a key
/// twice).
void scan_unfinished_files(Redis& redis, const QueueNames& names,
                           const std::function<void(const UnfinishedFile&)>& visit);

/// Appends the event of `file` to the stream again (file_id, storage_key, and those of
/// steps, content_type, name, owner and ocr_langs that are set); returns the new entry id.
/// Throws RedisReplyError when Redis refuses.
std::string reappend_event(Redis& redis, const QueueNames& names, const UnfinishedFile& file);

/// `ingestd retry`: appends the event of `file_id` again from its metadata (storage_key,
/// steps, declared content type, name, owner, ocr_langs), whatever its status; returns the
/// new entry id, nullopt when no metadata exists for it. Throws RedisReplyError when Redis
/// refuses.
std::optional<std::string> retry_file(Redis& redis, const QueueNames& names, const std::string& file_id);

/// Deletes `letter` from the dead-letter stream; false when it was already gone.
bool purge_dead_letter(Redis& redis, const QueueNames& names, const DeadLetter& letter);

/// The event a dead letter carries (its fields without dead_*), as a stream entry would.
Fields dead_letter_event(const DeadLetter& letter);

} // namespace jobs

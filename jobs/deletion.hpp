#pragma once

#include "jobs/queue_names.hpp"
#include "jobs/redis.hpp"

#include <functional>
#include <string>
#include <vector>

// The Redis side of deletion outside the worker's fenced tombstone (Queue::tombstone): the
// delete events of `ingestd delete`, and what `ingestd gc` reads and writes. Every function
// takes the caller's connection and throws RedisIoError when Redis cannot be reached and
// RedisReplyError when it refuses.
namespace jobs {

/// Appends `op=delete` for `file_id` to the stream; returns the new entry id.
std::string append_delete_event(Redis& redis, const QueueNames& names, const std::string& file_id);

/// A tombstone that still names its original bytes.
struct Tombstone {
    std::string file_id;
    std::string event_id;
    std::string deleted_at; // RFC 3339
    std::string storage_key;
};

/// Scans every metadata hash with SCAN (never KEYS), a batch at a time with one pipelined
/// HMGET per batch, and calls `visit` for each tombstone that has a storage_key. A file may
/// be visited twice (as SCAN may return a key twice). Memory: one batch.
void scan_tombstones(Redis& redis, const QueueNames& names, const std::function<void(const Tombstone&)>& visit);

/// Drops `storage_key` from the tombstone once its bytes are gone, if it is still the same
/// tombstone (status deleted, same event_id and storage_key). True when this call dropped it
/// (false when another collector did first, or the file came back).
bool forget_original(Redis& redis, const QueueNames& names, const Tombstone& tombstone);

/// What the garbage collector needs to know of a file to judge one of its outputs.
struct OutputOwner {
    bool exists = false;              // the metadata hash exists
    std::string status;               // "" when absent
    std::vector<std::string> outputs; // the output keys its metadata names
};

/// The owners of `file_ids`, in order, read in one pipelined round trip.
std::vector<OutputOwner> read_output_owners(Redis& redis, const QueueNames& names,
                                            const std::vector<std::string>& file_ids);

} // namespace jobs

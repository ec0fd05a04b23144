#pragma once

#include "jobs/script.hpp"

namespace jobs {

/// The Lua scripts of the queue's writes. The fenced ones share one prelude in which the
/// fence (ownership of the entry, then no newer or final event for the file) is written
/// once. Each returns a verdict for fence_of(). Thread-safe (immutable after first use).

/// KEYS: metadata stream results. ARGV: group consumer entry file_id channel pairs...
/// Writes `status=processing`, `event_id` and the pairs, and announces the change.
const Script& start_script();

/// KEYS: metadata stream results hash-index (or ""). ARGV: group consumer entry file_id
/// channel status nclear clear... pairs... Deletes `clear`, writes the pairs, records the
/// hash index for a done file, announces and acknowledges.
const Script& commit_script();
const Script& progress_script();

/// KEYS: metadata stream results hash-index (or ""). ARGV: group consumer entry file_id
/// channel deleted_at storage_key content_hash. Turns the metadata into a tombstone
/// (`status=deleted`, `deleted_at`; content_hash, name, owner and storage_key kept), drops
/// the hash index entry when it names this file for `content_hash`, announces, acknowledges.
const Script& delete_script();

/// KEYS: metadata stream results dead. ARGV: group consumer entry file_id channel give_up
/// nfields entry-pairs... meta-pairs... Copies the entry to the dead stream; with give_up
/// (and not superseded) ends the metadata failed; acknowledges.
const Script& dead_letter_script();

/// KEYS: stream. ARGV: group consumer idle_ms ids... Sets the idle time of each id this
/// consumer still owns to idle_ms (0 renews the lease; a long one hands the entry back) and
/// returns the ids it does not own.
const Script& renew_script();

} // namespace jobs

#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"

#include <string>
#include <vector>

// Worker heartbeats (spec "HTTP", /v1/workers): each worker of a group keeps one hash
// `<prefix>worker:<group>:<name>` that expires unless renewed, and its name in the sorted set
// `<prefix>workers:<group>` (score: last seen, unix seconds), so that any pod lists the group.
namespace jobs {

/// What a worker says of itself; every value as the hash holds it (strings).
struct WorkerBeat {
    std::string name;
    std::string host;
    std::string version;
    std::string concurrency;
    std::string in_flight;
    std::string files_done;   // files finished (done, partial or failed) since it started
    std::string files_failed; // of those, failed or with a failed step
    std::string started_at;   // RFC 3339
    std::string last_seen;    // RFC 3339, set by write_heartbeat
};

/// Writes `beat` (last_seen now) to expire after `ttl_s` seconds, and registers its name.
/// Throws RedisIoError when Redis cannot be reached.
void write_heartbeat(Redis& redis, const QueueNames& names, WorkerBeat beat, int ttl_s);

/// Removes the heartbeat of `name` (a worker that stops says so at once).
void remove_heartbeat(Redis& redis, const QueueNames& names, const std::string& name);

/// Every live worker of the group (its heartbeat has not expired), by name; forgets the
/// names whose heartbeat expired. Throws RedisIoError when Redis cannot be reached.
std::vector<WorkerBeat> read_workers(Redis& redis, const QueueNames& names);

} // namespace jobs

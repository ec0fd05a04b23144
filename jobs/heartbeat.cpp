#include "jobs/heartbeat.hpp"

#include "jobs/metadata.hpp"
#include "jobs/timestamp.hpp"

#include <chrono>

namespace jobs {
namespace {

std::string beat_key(const QueueNames& names, const std::string& name) {
    return names.prefix + "worker:" + names.group + ":" + name;
}

std::string set_key(const QueueNames& names) {
    return names.prefix + "workers:" + names.group;
}

// The members of a WorkerBeat with their field names, in the order the hash holds them.
template <typename Beat, typename Visit> void each_field(Beat& b, Visit visit) {
    visit("name", b.name);
    visit("host", b.host);
    visit("version", b.version);
    visit("concurrency", b.concurrency);
    visit("in_flight", b.in_flight);
    visit("files_done", b.files_done);
    visit("files_failed", b.files_failed);
    visit("started_at", b.started_at);
    visit("last_seen", b.last_seen);
}

} // namespace

void write_heartbeat(Redis& redis, const QueueNames& names, WorkerBeat beat, int ttl_s) {
    beat.last_seen = utc_now_rfc3339();
    const std::string key = beat_key(names, beat.name);
    std::vector<std::string> hset = {"HSET", key};
    each_field(beat, [&hset](const char* field, const std::string& value) {
        hset.push_back(field);
        hset.push_back(value);
    });
    const auto now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
    for (const Reply& r : redis.pipeline({hset,
                                          {"EXPIRE", key, std::to_string(ttl_s)},
                                          {"ZADD", set_key(names), std::to_string(now.count()), beat.name}})) {
        checked(r, "heartbeat");
    }
}

void remove_heartbeat(Redis& redis, const QueueNames& names, const std::string& name) {
    redis.pipeline({{"DEL", beat_key(names, name)}, {"ZREM", set_key(names), name}});
}

std::vector<WorkerBeat> read_workers(Redis& redis, const QueueNames& names) {
    const Reply members = checked(redis.command({"ZRANGE", set_key(names), "0", "-1"}), "ZRANGE");
    std::vector<std::vector<std::string>> reads;
    for (const auto& m : members.elements) reads.push_back({"HGETALL", beat_key(names, m.str)});
    std::vector<WorkerBeat> workers;
    if (reads.empty()) return workers;
    const std::vector<Reply> replies = redis.pipeline(reads);
    for (std::size_t i = 0; i < replies.size(); ++i) {
        const Fields fields = replies[i].as_pairs();
        if (fields.empty()) { // expired: the worker stopped without saying so
            redis.command({"ZREM", set_key(names), members.elements[i].str});
            continue;
        }
        WorkerBeat beat;
        each_field(beat, [&fields](const char* field, std::string& value) { value = field_value(fields, field); });
        workers.push_back(std::move(beat));
    }
    return workers;
}

} // namespace jobs

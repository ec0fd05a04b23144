// /v1/workers: the whole group from any pod, from shared data in Redis (heartbeats, the
// results stream, the failure counters), never from this process's memory.
#include "jobs/fleet_reads.hpp"
#include "jobs/fleet_stats.hpp"
#include "jobs/heartbeat.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"

namespace worker::http {
namespace {

constexpr int k_fleet_minutes = 15;

long long number(const std::string& s) {
    return s.empty() ? 0 : std::atoll(s.c_str());
}

nlohmann::ordered_json worker_json(const jobs::WorkerBeat& w) {
    return {{"name", w.name},
            {"host", w.host},
            {"version", w.version},
            {"concurrency", number(w.concurrency)},
            {"in_flight", number(w.in_flight)},
            {"files_done", number(w.files_done)},
            {"files_failed", number(w.files_failed)},
            {"started_at", w.started_at},
            {"last_seen", w.last_seen}};
}

} // namespace

nlohmann::ordered_json fleet_json(ServerContext& context, jobs::Redis& redis) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["workers"] = nlohmann::ordered_json::array();
    for (const auto& w : jobs::read_workers(redis, context.names)) j["workers"].push_back(worker_json(w));
    const jobs::QueueDepth depth = jobs::read_queue_depth(redis, context.names);
    j["queue"] = {{"lag", depth.lag}, {"pending", depth.pending}, {"dead_letters", depth.dead_letters}};
    long long done = 0, failed = 0;
    j["minutes"] = nlohmann::ordered_json::array();
    for (const auto& m : jobs::read_fleet_activity(redis, context.names, k_fleet_minutes)) {
        j["minutes"].push_back({{"start", m.start_unix}, {"done", m.done}, {"failed", m.failed}});
        done += m.done;
        failed += m.failed;
    }
    j["throughput_per_minute"] = static_cast<double>(done + failed) / k_fleet_minutes;
    j["failure_rate"] = done + failed == 0 ? 0.0 : static_cast<double>(failed) / static_cast<double>(done + failed);
    j["failures_by_code"] = jobs::read_failures_by_code(redis, context.names);
    return j;
}

Response workers(const Request&, ServerContext& context, jobs::Redis& redis) {
    return json(beast_http::status::ok, fleet_json(context, redis));
}

} // namespace worker::http

#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"

namespace worker::http {
namespace {

constexpr int k_stats_minutes = 15; // minutes of /v1/stats

} // namespace

Response stats(const Request&, ServerContext& context, jobs::Redis& redis) {
    context.refresh_queue_gauges(redis);
    const Metrics& metrics = context.metrics;
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["worker"] = context.config.consumer;
    j["ready"] = context.ready();
    j["draining"] = context.draining.load();
    j["redis_up"] = metrics.redis_up.load();
    j["concurrency"] = context.config.concurrency;
    j["in_flight"] = metrics.in_flight.load();
    j["stream_lag"] = metrics.stream_lag.load();
    j["stream_pending"] = metrics.stream_pending.load();
    j["dead_letters"] = metrics.dead_letters.load();
    j["minutes"] = nlohmann::ordered_json::array();
    for (const auto& m : metrics.recent_minutes(k_stats_minutes)) {
        j["minutes"].push_back({{"start", m.start_unix}, {"done", m.done}, {"failed", m.failed}});
    }
    return json(beast_http::status::ok, j);
}

} // namespace worker::http

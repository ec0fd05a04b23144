#include "worker/daemon/heartbeat.hpp"

#include "jobs/heartbeat.hpp"
#include "jobs/timestamp.hpp"
#include "worker/config/version.hpp"
#include "worker/daemon/pacing.hpp"
#include "worker/http/metrics.hpp"

#include <unistd.h>

namespace worker {
namespace {

std::string host_name() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) return "";
    return host;
}

} // namespace

void run_heartbeat(const Config& config, Metrics& metrics, const std::atomic<bool>& stop) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis(redis_address(config), std::chrono::milliseconds(2000));
    jobs::WorkerBeat beat;
    beat.name = config.consumer;
    beat.host = host_name();
    beat.version = k_version;
    beat.concurrency = std::to_string(config.concurrency);
    beat.started_at = jobs::utc_now_rfc3339();
    while (!stop) {
        beat.in_flight = std::to_string(metrics.in_flight.load());
        beat.files_done = std::to_string(metrics.files_done.load());
        beat.files_failed = std::to_string(metrics.files_failed.load());
        try {
            jobs::write_heartbeat(redis, names, beat, k_heartbeat_ttl_s);
        } catch (const std::exception&) {
            // Redis away or refusing: the dispatcher counts and logs its outages; beat again later.
        }
        sleep_unless(stop, std::chrono::seconds(k_heartbeat_interval_s));
    }
    try {
        jobs::remove_heartbeat(redis, names, beat.name);
    } catch (const std::exception&) {
        // Unreachable at exit: the heartbeat expires by itself.
    }
}

} // namespace worker

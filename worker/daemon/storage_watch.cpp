#include "worker/daemon/storage_watch.hpp"

#include "worker/config/log.hpp"
#include "worker/daemon/pacing.hpp"

namespace worker {

void run_storage_watch(const Store& store, Metrics& metrics, const std::atomic<bool>& stop) {
    while (!stop) {
        const bool up = store.reachable();
        if (up != metrics.storage_up.exchange(up)) {
            if (up) {
                log::info("storage reachable again", {{"storage", store.describe("")}});
            } else {
                log::warn("storage unreachable; not ready until it answers", {{"storage", store.describe("")}});
            }
        }
        sleep_unless(stop, std::chrono::milliseconds(up ? 5000 : 1000));
    }
}

} // namespace worker

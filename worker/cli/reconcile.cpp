#include "jobs/admin.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <iostream>
#include <optional>
#include <set>
#include <string>

namespace worker::cli {
namespace {

int reconcile(const Config& config, const double& older_than) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    // A file whose event is still in the stream will be finished by a worker: left alone.
    std::set<std::string> live = jobs::file_ids_in_stream(redis, names);
    jobs::scan_unfinished_files(redis, names, [&](const jobs::UnfinishedFile& file) {
        if (live.count(file.file_id) != 0) return;
        // An application may write `pending` without submitted_at: its age is unknown, and
        // re-appending it could run a file whose event is still on its way.
        const auto age = jobs::age_seconds(file.since);
        if (!age) {
            std::cerr << "ingestd reconcile: skipped " << file.file_id << " (" << file.status
                      << "): age unknown, its metadata has no submitted_at or started_at\n";
            return;
        }
        if (*age < older_than) return;
        const std::string event_id = jobs::reappend_event(redis, names, file);
        live.insert(file.file_id); // SCAN may return the key again
        print_json({{"file_id", file.file_id}, {"status", file.status}, {"event_id", event_id}});
    });
    return k_exit_ok;
}

void add_reconcile_flags(CLI::App& app, double& older_than) {
    app.add_option("--older-than", older_than, "seconds")->required()->check(seconds_check(true));
}

} // namespace

Command reconcile_command() {
    return make_command<double>("reconcile",
                                "re-append the event of files left pending/processing with no pending stream entry",
                                false, add_reconcile_flags, reconcile);
}

} // namespace worker::cli

#include "jobs/admin.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <set>
#include <string>

namespace worker::cli {
namespace {

// Seconds since an RFC 3339 UTC time written by ingestd; nullopt when unparsable.
std::optional<double> age_of(const std::string& ts) {
    std::tm tm{};
    int ms = 0;
    if (ts.size() < 20 || std::sscanf(ts.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                      &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) < 6) {
        return std::nullopt;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const std::time_t t = timegm(&tm);
    const auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return now - (static_cast<double>(t) + ms / 1000.0);
}

int reconcile(const Config& config, const double& older_than) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    // A file whose event is still in the stream will be finished by a worker: left alone.
    std::set<std::string> live = jobs::file_ids_in_stream(redis, names);
    jobs::scan_unfinished_files(redis, names, [&](const jobs::UnfinishedFile& file) {
        if (live.count(file.file_id) != 0) return;
        // A time that cannot be read does not protect a file: it is treated as old.
        const auto age = age_of(file.since);
        if (age && *age < older_than) return;
        const std::string event_id = jobs::reappend_event(redis, names, file);
        live.insert(file.file_id); // SCAN may return the key again
        print_json({{"file_id", file.file_id}, {"status", file.status}, {"event_id", event_id}});
    });
    return k_exit_ok;
}

void add_reconcile_flags(CLI::App& app, double& older_than) {
    app.add_option("--older-than", older_than, "seconds")->required()->check(CLI::NonNegativeNumber);
}

} // namespace

Command reconcile_command() {
    return make_command<double>("reconcile",
                                "re-append the event of files left pending/processing with no pending stream entry",
                                false, add_reconcile_flags, reconcile);
}

} // namespace worker::cli

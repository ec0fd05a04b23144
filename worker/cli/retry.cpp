#include "jobs/admin.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <iostream>

// `ingestd retry FILE_ID...`: the event of each file appended again from its metadata.
namespace worker::cli {
namespace {

int retry(const Config& config, const std::vector<std::string>& ids) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    int rc = k_exit_ok;
    for (const auto& id : ids) {
        const auto event_id = jobs::retry_file(redis, names, id);
        if (!event_id) {
            std::cerr << "ingestd retry: unknown file id " << id << "\n";
            rc = k_exit_unknown;
            continue;
        }
        print_json({{"file_id", id}, {"event_id", *event_id}});
    }
    return rc;
}

void add_retry_flags(CLI::App& app, std::vector<std::string>& ids) {
    app.add_option("FILE_ID", ids, "file ids")->type_name("ID")->required();
}

} // namespace

Command retry_command() {
    return make_command<std::vector<std::string>>(
        "retry", "re-append the event of files from their metadata, whatever their status (exit 3 if unknown)", false,
        add_retry_flags, retry);
}

} // namespace worker::cli

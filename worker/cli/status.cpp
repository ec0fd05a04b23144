#include "jobs/admin.hpp"
#include "jobs/event.hpp"
#include "jobs/metadata.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <chrono>
#include <iostream>

namespace worker::cli {
namespace {

struct StatusFlags {
    std::vector<std::string> ids;
    WaitFlags wait;
};

void add_status_flags(CLI::App& app, StatusFlags& flags) {
    app.add_option("FILE_ID", flags.ids, "file ids")->type_name("ID")->required();
    add_wait_flags(app, flags.wait, "wait until the metadata exists and is final");
}

int status(const Config& config, const StatusFlags& flags) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    int rc = k_exit_ok;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(flags.wait.timeout_s);
    for (const auto& id : flags.ids) {
        // An id that cannot be a file_id names no metadata: it is unknown without asking.
        std::optional<jobs::Fields> fields;
        if (flags.wait.wait) {
            fields = jobs::wait_until_final(redis, names, id, deadline);
        } else if (jobs::valid_file_id(id)) {
            fields = jobs::read_metadata(redis, names, id);
        }
        if (!fields) {
            std::cerr << "ingestd status: unknown file id " << id << "\n";
            rc = k_exit_unknown;
            continue;
        }
        if (flags.wait.wait && !jobs::is_final(*fields)) {
            std::cerr << "ingestd status: " << id << " not final after " << flags.wait.timeout_s << " s\n";
            if (rc == k_exit_ok) rc = k_exit_failed;
        }
        print_json(metadata_object(id, *fields));
    }
    return rc;
}

} // namespace

Command status_command() {
    return make_command<StatusFlags>("status", "print the metadata of files (exit 3 if unknown)", false,
                                     add_status_flags, status);
}

} // namespace worker::cli

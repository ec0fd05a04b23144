#include "jobs/deletion.hpp"
#include "jobs/event.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <iostream>

// `ingestd delete FILE_ID...`: one `op=delete` event per file; a worker writes the tombstone.
namespace worker::cli {
namespace {

void add_delete_flags(CLI::App& app, std::vector<std::string>& ids) {
    app.add_option("FILE_ID", ids, "file ids to delete")->type_name("ID")->required();
}

int delete_files(const Config& config, const std::vector<std::string>& ids) {
    // Every id is checked before any event is appended: a typo deletes nothing.
    for (const auto& id : ids) {
        if (!jobs::valid_file_id(id)) {
            std::cerr << "ingestd delete: \"" << id << "\" is not a file id ([A-Za-z0-9][A-Za-z0-9._:-]{0,127})\n";
            return k_exit_usage;
        }
    }
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    for (const auto& id : ids) {
        // An id the worker never saw is deleted too: its tombstone drops the late upload.
        const std::string event_id = jobs::append_delete_event(redis, names, id);
        print_json({{"file_id", id}, {"op", "delete"}, {"event_id", event_id}});
    }
    return k_exit_ok;
}

} // namespace

Command delete_command() {
    return make_command<std::vector<std::string>>("delete", "append a delete event for each file", false,
                                                  add_delete_flags, delete_files);
}

} // namespace worker::cli

#include "jobs/admin.hpp"
#include "jobs/metadata.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <iostream>
#include <set>

// `ingestd dead list` and `ingestd dead retry`: the two subcommands of `dead`.
namespace worker::cli {
namespace {

int dead_list(const Config& config) {
    jobs::Redis redis = connect_redis(config);
    for (const auto& letter : jobs::list_dead_letters(redis, queue_names(config))) {
        auto object = metadata_object(jobs::field_value(letter.fields, "file_id"), letter.fields);
        object["dead_id"] = letter.dead_id;
        print_json(object);
    }
    return k_exit_ok;
}

int dead_retry(const Config& config, const std::vector<std::string>& ids) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    const std::set<std::string> wanted(ids.begin(), ids.end());
    for (const auto& letter : jobs::list_dead_letters(redis, names)) {
        const std::string file_id = jobs::field_value(letter.fields, "file_id");
        if (!wanted.empty() && wanted.count(file_id) == 0) continue;
        const jobs::Appended appended = jobs::requeue_dead_letter(redis, names, letter);
        if (!appended.ok()) {
            std::cerr << "ingestd dead retry: Redis refused the retry of " << letter.dead_id << "\n";
            return k_exit_failed;
        }
        print_json({{"file_id", file_id}, {"event_id", appended.entry_id}, {"dead_id", letter.dead_id}});
    }
    return k_exit_ok;
}

void add_file_ids(CLI::App& app, std::vector<std::string>& ids) {
    app.add_option("FILE_ID", ids, "file ids");
}

} // namespace

Command dead_list_command() {
    return make_command("dead list", "print the dead-lettered events", false, dead_list);
}

Command dead_retry_command() {
    return make_command<std::vector<std::string>>(
        "dead retry", "re-append dead-lettered events (all, or those of FILE_IDs)", false, add_file_ids, dead_retry);
}

} // namespace worker::cli

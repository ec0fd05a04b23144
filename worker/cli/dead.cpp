#include "jobs/admin.hpp"
#include "jobs/dead_letters.hpp"
#include "jobs/metadata.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"

#include <functional>
#include <iostream>
#include <set>

// `ingestd dead list`, `dead retry` and `dead purge`: the subcommands of `dead`.
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

// Calls `act` on each dead letter of the given file ids (all when none given); says which
// ids have no dead letter and then returns k_exit_unknown, else what `act` last returned
// that was not k_exit_ok.
int for_each_letter(const std::string& command, const Config& config, const std::vector<std::string>& ids,
                    const std::function<int(jobs::Redis&, const jobs::QueueNames&, const jobs::DeadLetter&)>& act) {
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    std::set<std::string> unseen;
    int rc = k_exit_ok;
    for (const auto& letter : jobs::dead_letters_of(redis, names, ids, unseen)) {
        if (const int r = act(redis, names, letter); r != k_exit_ok) rc = r;
    }
    for (const auto& id : unseen) {
        std::cerr << "ingestd dead " << command << ": no dead letter for file id " << id << "\n";
        rc = k_exit_unknown;
    }
    return rc;
}

// An entry that would die again at once is left in the dead-letter stream and reported.
int retry_one(jobs::Redis& redis, const jobs::QueueNames& names, const jobs::DeadLetter& letter) {
    const std::string file_id = jobs::field_value(letter.fields, "file_id");
    const jobs::DeadOutcome outcome = jobs::retry_dead_letter(redis, names, letter);
    if (!outcome.skipped.empty()) {
        std::cerr << "ingestd dead retry: skipped " << letter.dead_id << ", " << outcome.skipped << "\n";
        print_json({{"file_id", file_id}, {"dead_id", letter.dead_id}, {"skipped", outcome.skipped}});
        return k_exit_ok;
    }
    print_json({{"file_id", file_id}, {"event_id", outcome.event_id}, {"dead_id", letter.dead_id}});
    return k_exit_ok;
}

int purge_one(jobs::Redis& redis, const jobs::QueueNames& names, const jobs::DeadLetter& letter) {
    auto object = metadata_object(jobs::field_value(letter.fields, "file_id"), letter.fields);
    object["dead_id"] = letter.dead_id;
    print_json(object);
    jobs::purge_dead_letter(redis, names, letter);
    return k_exit_ok;
}

int dead_retry(const Config& config, const std::vector<std::string>& ids) {
    return for_each_letter("retry", config, ids, retry_one);
}

int dead_purge(const Config& config, const std::vector<std::string>& ids) {
    return for_each_letter("purge", config, ids, purge_one);
}

void add_file_ids(CLI::App& app, std::vector<std::string>& ids) {
    app.add_option("FILE_ID", ids, "file ids")->type_name("ID");
}

} // namespace

Command dead_list_command() {
    return make_command("dead list", "print the dead-lettered events", false, dead_list);
}

Command dead_retry_command() {
    return make_command<std::vector<std::string>>(
        "dead retry",
        "re-append dead-lettered events (all, or those of FILE_IDs; exit 3 if one has none); entries that can never "
        "succeed are skipped and reported",
        false, add_file_ids, dead_retry);
}

Command dead_purge_command() {
    return make_command<std::vector<std::string>>(
        "dead purge", "print and delete dead-lettered events (all, or those of FILE_IDs; exit 3 if one has none)",
        false, add_file_ids, dead_purge);
}

} // namespace worker::cli

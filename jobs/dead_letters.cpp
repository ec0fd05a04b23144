#include "jobs/dead_letters.hpp"

#include "jobs/event.hpp"

namespace jobs {

std::vector<DeadLetter> dead_letters_of(Redis& redis, const QueueNames& names, const std::vector<std::string>& file_ids,
                                        std::set<std::string>& unseen) {
    unseen = std::set<std::string>(file_ids.begin(), file_ids.end());
    const std::set<std::string> wanted = unseen;
    std::vector<DeadLetter> out;
    for (auto& letter : list_dead_letters(redis, names)) {
        const std::string file_id = field_value(letter.fields, "file_id");
        if (!wanted.empty() && wanted.count(file_id) == 0) continue;
        unseen.erase(file_id);
        out.push_back(std::move(letter));
    }
    return out;
}

DeadOutcome retry_dead_letter(Redis& redis, const QueueNames& names, const DeadLetter& letter) {
    DeadOutcome outcome{letter, "", ""};
    const ParsedEntry parsed = parse_event(letter.dead_id, dead_letter_event(letter));
    if (parsed.verdict != ParsedEntry::Verdict::ok) {
        outcome.skipped = "it can never succeed: " + parsed.reason;
        return outcome;
    }
    const Appended appended = requeue_dead_letter(redis, names, letter);
    if (!appended.ok()) {
        outcome.skipped = "Redis refused the retry: " + appended.refusal;
    } else {
        outcome.event_id = appended.entry_id;
    }
    return outcome;
}

} // namespace jobs

#pragma once

#include "jobs/admin.hpp"

#include <set>
#include <string>
#include <vector>

// What `dead retry`/`dead purge` and their HTTP actions do to the dead-letter stream.
namespace jobs {

/// What became of one dead letter.
struct DeadOutcome {
    DeadLetter letter;
    std::string event_id; // the new stream entry, when re-appended
    std::string skipped;  // why it was left (it can never succeed, or Redis refused), else ""
};

/// The dead letters of `file_ids` (all when empty), oldest first; `unseen` gets the ids that
/// have none.
std::vector<DeadLetter> dead_letters_of(Redis& redis, const QueueNames& names, const std::vector<std::string>& file_ids,
                                        std::set<std::string>& unseen);

/// Re-appends `letter` unless its event could never succeed (no valid file_id, or fields no
/// worker accepts): such a letter stays, with the reason in `skipped`.
DeadOutcome retry_dead_letter(Redis& redis, const QueueNames& names, const DeadLetter& letter);

} // namespace jobs

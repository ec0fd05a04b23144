// jobs::Queue's fenced writes: the processing write, the final commit, the tombstone and the
// dead letter.
#include "jobs/fenced_scripts.hpp"
#include "jobs/queue.hpp"

#include <stdexcept>

namespace jobs {
namespace {

void append_pairs(std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& pairs) {
    for (const auto& [k, v] : pairs) {
        args.push_back(k);
        args.push_back(v);
    }
}

} // namespace

Fence Queue::start(Redis& redis, const std::string& entry_id, const std::string& file_id,
                   const std::vector<std::pair<std::string, std::string>>& fields) const {
    std::vector<std::string> args = {m_names.group, m_names.consumer, entry_id, file_id, m_names.status_channel()};
    append_pairs(args, fields);
    return fence_of(
        start_script().call(redis, {m_names.metadata_key(file_id), m_names.stream, m_names.results_stream()}, args),
        "processing write");
}

Fence Queue::progress(Redis& redis, const std::string& entry_id, const std::string& file_id,
                      const std::vector<std::pair<std::string, std::string>>& fields,
                      const std::vector<std::string>& clear) const {
    std::vector<std::string> args = {m_names.group, m_names.consumer, entry_id, std::to_string(clear.size())};
    args.insert(args.end(), clear.begin(), clear.end());
    append_pairs(args, fields);
    return fence_of(progress_script().call(redis, {m_names.metadata_key(file_id), m_names.stream}, args),
                    "progress write");
}

Fence Queue::commit(Redis& redis, const std::string& entry_id, const std::string& file_id,
                    const std::vector<std::pair<std::string, std::string>>& fields,
                    const std::vector<std::string>& clear, const std::string& index_sha256) const {
    // `status` and `event_id` are written by the script itself (the event id is the entry's).
    std::string status;
    std::vector<std::pair<std::string, std::string>> rest;
    rest.reserve(fields.size());
    for (const auto& kv : fields) {
        if (kv.first == "status")
            status = kv.second;
        else if (kv.first != "event_id")
            rest.push_back(kv);
    }
    if (status.empty()) throw std::logic_error("commit without a status");
    std::vector<std::string> args = {m_names.group,
                                     m_names.consumer,
                                     entry_id,
                                     file_id,
                                     m_names.status_channel(),
                                     status,
                                     std::to_string(clear.size())};
    args.insert(args.end(), clear.begin(), clear.end());
    append_pairs(args, rest);
    std::string index_key = index_sha256.empty() ? std::string() : m_names.hash_index_key(index_sha256);
    return fence_of(
        commit_script().call(
            redis, {m_names.metadata_key(file_id), m_names.stream, m_names.results_stream(), index_key}, args),
        "final commit");
}

Fence Queue::tombstone(Redis& redis, const std::string& entry_id, const std::string& file_id,
                       const std::string& deleted_at, const std::string& storage_key) const {
    // The index key is named from the hash read now; the script checks it is still the file's.
    const Reply hash = redis.command({"HGET", m_names.metadata_key(file_id), "content_hash"});
    const std::string sha256 = hash.type == Reply::Type::string ? hash.str : std::string();
    const std::string index_key = sha256.empty() ? std::string() : m_names.hash_index_key(sha256);
    const std::vector<std::string> args = {m_names.group, m_names.consumer, entry_id, file_id, m_names.status_channel(),
                                           deleted_at,    storage_key,      sha256};
    return fence_of(
        delete_script().call(
            redis, {m_names.metadata_key(file_id), m_names.stream, m_names.results_stream(), index_key}, args),
        "delete");
}

Fence Queue::dead_letter(Redis& redis, const Delivery& delivery, const std::string& file_id, const std::string& reason,
                         bool give_up, const std::vector<std::pair<std::string, std::string>>& fields) const {
    // The dead entry keeps the original fields, with this delivery's dead_* fields replacing
    // any that an earlier dead-lettering (then `dead retry`) left.
    std::vector<std::string> entry;
    for (const auto& [k, v] : delivery.fields) {
        if (k == "dead_reason" || k == "dead_deliveries" || k == "dead_source_id") continue;
        entry.push_back(k);
        entry.push_back(v);
    }
    entry.insert(entry.end(), {"dead_reason", reason, "dead_deliveries", std::to_string(delivery.deliveries),
                               "dead_source_id", delivery.entry_id});
    std::vector<std::string> args = {m_names.group,
                                     m_names.consumer,
                                     delivery.entry_id,
                                     file_id,
                                     m_names.status_channel(),
                                     give_up ? "1" : "0",
                                     std::to_string(entry.size())};
    args.insert(args.end(), entry.begin(), entry.end());
    append_pairs(args, fields);
    // Without a valid file_id (give_up false) the metadata key is a placeholder never written.
    return fence_of(dead_letter_script().call(redis,
                                              {m_names.metadata_key(file_id), m_names.stream, m_names.results_stream(),
                                               m_names.dead_stream()},
                                              args),
                    "dead letter");
}

} // namespace jobs

#include "jobs/admin.hpp"

#include "jobs/event.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

namespace jobs {
namespace {

// The arguments of one command.
using Args = std::vector<std::string>;

// XPENDING rows are fetched back in pipelines of this many XRANGEs: one round trip per
// batch, and no single reply large enough to stall Redis.
constexpr std::size_t k_fetch_batch = 500;

// The replies of MULTI, the queued commands, EXEC: EXEC answers with one reply per queued
// command, or with an error (or nil) when the whole transaction was refused; `index` is the
// queued command whose reply is the new entry id.
Appended appended_by(const std::vector<Reply>& replies, std::size_t index) {
    const Reply& exec = replies.back();
    const std::size_t queued = replies.size() - 2;
    if (!exec.is_array() || exec.elements.size() < queued || exec.elements[index].is_error()) {
        return {"", exec.is_error() ? exec.str : "transaction failed"};
    }
    return {exec.elements[index].str, ""};
}

void append_pairs(Args& command, const Fields& fields) {
    for (const auto& [k, v] : fields) {
        command.push_back(k);
        command.push_back(v);
    }
}

// A stream entry of XRANGE is [id, [field, value, ...]]; anything shorter is skipped.
void for_each_entry(const Reply& entries, const std::function<void(const std::string&, Fields)>& visit) {
    for (const auto& e : entries.elements) {
        if (e.elements.size() >= 2) visit(e.elements[0].str, e.elements[1].as_pairs());
    }
}

bool is_dead_field(const std::string& key) {
    return key == "dead_reason" || key == "dead_deliveries" || key == "dead_source_id";
}

// The id after which the group has not delivered yet ("0-0" when the group is missing).
std::string last_delivered_id(Redis& redis, const QueueNames& names) {
    std::string last_delivered = "0-0";
    Reply groups = redis.command({"XINFO", "GROUPS", names.stream});
    if (!groups.is_array()) return last_delivered;
    for (const auto& g : groups.elements) {
        const Fields info = g.as_pairs();
        if (field_value(info, "name") == names.group) last_delivered = field_value(info, "last-delivered-id");
    }
    return last_delivered;
}

// One XRANGE per entry pending in the group, to learn which file each one carries.
std::vector<Args> pending_entry_reads(Redis& redis, const QueueNames& names) {
    std::vector<Args> reads;
    Reply pending = redis.command({"XPENDING", names.stream, names.group, "-", "+", "100000"});
    if (!pending.is_array()) return reads;
    for (const auto& row : pending.elements) {
        if (!row.elements.empty()) {
            reads.push_back({"XRANGE", names.stream, row.elements[0].str, row.elements[0].str});
        }
    }
    return reads;
}

// The fields reconcile reads of each metadata hash (HMGET, not HGETALL: a
// finished file's inline text can be a megabyte, and most scanned files are finished).
const Args& unfinished_fields() {
    static const Args fields = {"status",     "storage_key",  "steps",
                                "started_at", "submitted_at", "declared_content_type",
                                "name",       "owner",        "ocr_langs"};
    return fields;
}

// The fields of unfinished_fields() of metadata hash `key` (status empty when it does not
// exist), nullopt when Redis answered something else.
std::optional<UnfinishedFile> file_fields(Redis& redis, const std::string& key, const std::string& file_id) {
    const Args& wanted = unfinished_fields();
    Args hmget = {"HMGET", key};
    hmget.insert(hmget.end(), wanted.begin(), wanted.end());
    const Reply m = redis.command(hmget);
    if (!m.is_array() || m.elements.size() < wanted.size()) return std::nullopt;
    Fields got;
    for (std::size_t i = 0; i < wanted.size(); ++i) got.emplace_back(wanted[i], m.elements[i].str);
    const auto value = [&got](const char* field) { return field_value(got, field); };
    UnfinishedFile f{file_id,
                     value("status"),
                     value("storage_key"),
                     value("steps"),
                     value("declared_content_type"),
                     value("name"),
                     value("owner"),
                     "",
                     value("ocr_langs")};
    const std::string started_at = value("started_at"), submitted_at = value("submitted_at");
    f.since = f.status == "processing" ? started_at : submitted_at;
    if (f.since.empty()) f.since = started_at.empty() ? submitted_at : started_at;
    return f;
}

std::optional<UnfinishedFile> unfinished_file(Redis& redis, const std::string& key, const std::string& file_id) {
    auto f = file_fields(redis, key, file_id);
    if (!f) return std::nullopt;
    if (f->status != "pending" && f->status != "processing") return std::nullopt;
    if (f->storage_key.empty()) return std::nullopt;
    return f;
}

} // namespace

bool is_final(const Fields& metadata) {
    const std::string status = field_value(metadata, "status");
    return status == "done" || status == "failed" || status == "deleted";
}

bool has_failure(const Fields& metadata) {
    return field_value(metadata, "status") == "failed" || field_value(metadata, "extraction_status") == "failed" ||
           field_value(metadata, "thumbnail_status") == "failed";
}

std::optional<Fields> wait_until_final(Redis& redis, const QueueNames& names, const std::string& file_id,
                                       std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        std::optional<Fields> fields = read_metadata(redis, names, file_id);
        if (fields && is_final(*fields)) return fields;
        if (std::chrono::steady_clock::now() >= deadline) return fields;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

Appended append_new_file(Redis& redis, const QueueNames& names, const NewFile& file) {
    Args hset = {"HSET", names.metadata_key(file.file_id)};
    append_pairs(hset, {{"status", "pending"},
                        {"storage_key", file.storage_key},
                        {"steps", file.steps},
                        {"name", file.name},
                        {"extraction_status", "pending"},
                        {"thumbnail_status", "pending"},
                        {"submitted_at", file.submitted_at}});
    // reconcile rebuilds the event from these fields if it is ever lost.
    if (!file.ocr_langs.empty()) hset.insert(hset.end(), {"ocr_langs", file.ocr_langs});
    Args xadd = {"XADD",
                 names.stream,
                 "*",
                 "file_id",
                 file.file_id,
                 "storage_key",
                 file.storage_key,
                 "name",
                 file.name,
                 "size",
                 std::to_string(file.size),
                 "steps",
                 file.steps};
    if (!file.ocr_langs.empty()) xadd.insert(xadd.end(), {"ocr_langs", file.ocr_langs});
    const auto replies = redis.pipeline({
        {"MULTI"},
        hset,
        xadd,
        {"XADD", names.results_stream(), "MAXLEN", "~", "100000", "*", "file_id", file.file_id, "status", "pending",
         "event_id", ""},
        {"EXEC"},
    });
    Appended appended = appended_by(replies, 1);
    if (!appended.ok()) return appended;
    const nlohmann::ordered_json status = {
        {"file_id", file.file_id}, {"status", "pending"}, {"event_id", appended.entry_id}};
    redis.command({"PUBLISH", names.status_channel(), status.dump()});
    return appended;
}

std::vector<DeadLetter> list_dead_letters(Redis& redis, const QueueNames& names) {
    const Reply r = checked(redis.command({"XRANGE", names.dead_stream(), "-", "+"}), "XRANGE");
    std::vector<DeadLetter> letters;
    for_each_entry(r, [&letters](const std::string& id, Fields fields) { letters.push_back({id, std::move(fields)}); });
    return letters;
}

Appended requeue_dead_letter(Redis& redis, const QueueNames& names, const DeadLetter& letter) {
    Args xadd = {"XADD", names.stream, "*"};
    append_pairs(xadd, dead_letter_event(letter));
    if (xadd.size() == 3) xadd.insert(xadd.end(), {"dead_retry", "1"}); // an entry needs a field
    const auto replies = redis.pipeline({{"MULTI"}, xadd, {"XDEL", names.dead_stream(), letter.dead_id}, {"EXEC"}});
    return appended_by(replies, 0);
}

std::set<std::string> file_ids_in_stream(Redis& redis, const QueueNames& names) {
    std::set<std::string> live;
    const auto collect = [&live](const Reply& entries) {
        for_each_entry(entries, [&live](const std::string&, const Fields& fields) {
            live.insert(field_value(fields, "file_id"));
        });
    };
    collect(redis.command({"XRANGE", names.stream, "(" + last_delivered_id(redis, names), "+"}));
    const std::vector<Args> reads = pending_entry_reads(redis, names);
    for (std::size_t i = 0; i < reads.size(); i += k_fetch_batch) {
        const auto end = std::min(reads.size(), i + k_fetch_batch);
        const std::vector<Args> batch(reads.begin() + static_cast<long>(i), reads.begin() + static_cast<long>(end));
        for (const auto& r : redis.pipeline(batch)) collect(r);
    }
    return live;
}

void scan_unfinished_files(Redis& redis, const QueueNames& names,
                           const std::function<void(const UnfinishedFile&)>& visit) {
    // Every metadata key is metadata_key(file_id): the pattern and the id's offset follow it.
    const std::string pattern = names.metadata_key("*");
    const std::size_t id_offset = names.metadata_key("").size();
    std::string cursor = "0";
    do {
        const Reply r = redis.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        if (!r.is_array() || r.elements.size() < 2) break;
        cursor = r.elements[0].str;
        for (const auto& k : r.elements[1].elements) {
            auto file = unfinished_file(redis, k.str, k.str.substr(id_offset));
            if (file) visit(*file);
        }
    } while (cursor != "0");
}

std::string reappend_event(Redis& redis, const QueueNames& names, const UnfinishedFile& file) {
    Args xadd = {"XADD", names.stream, "*", "file_id", file.file_id, "storage_key", file.storage_key};
    const Fields optional = {{"steps", file.steps},
                             {"content_type", file.declared_content_type},
                             {"name", file.name},
                             {"owner", file.owner},
                             {"ocr_langs", file.ocr_langs}};
    for (const auto& [k, v] : optional) {
        if (!v.empty()) xadd.insert(xadd.end(), {k, v});
    }
    return checked(redis.command(xadd), "XADD").str;
}

std::optional<std::string> retry_file(Redis& redis, const QueueNames& names, const std::string& file_id) {
    if (!valid_file_id(file_id)) return std::nullopt;
    const auto file = file_fields(redis, names.metadata_key(file_id), file_id);
    if (!file || file->status.empty()) return std::nullopt;
    return reappend_event(redis, names, *file);
}

bool purge_dead_letter(Redis& redis, const QueueNames& names, const DeadLetter& letter) {
    const Reply r = checked(redis.command({"XDEL", names.dead_stream(), letter.dead_id}), "XDEL");
    return r.integer > 0;
}

Fields dead_letter_event(const DeadLetter& letter) {
    Fields event;
    for (const auto& [k, v] : letter.fields) {
        if (!is_dead_field(k)) event.emplace_back(k, v);
    }
    return event;
}

} // namespace jobs

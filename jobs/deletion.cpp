#include "jobs/deletion.hpp"

#include "core/layout.hpp"

namespace jobs {
namespace {

using Args = std::vector<std::string>;

// SCAN's COUNT hint: keys per round trip, and so the batch held in memory.
constexpr const char* k_scan_count = "1000";

// KEYS: metadata. ARGV: event_id storage_key.
constexpr const char* k_forget = R"lua(
local cur = redis.call('HMGET', KEYS[1], 'status', 'event_id', 'storage_key')
if cur[1] ~= 'deleted' or cur[2] ~= ARGV[1] or cur[3] ~= ARGV[2] then return 0 end
return redis.call('HDEL', KEYS[1], 'storage_key')
)lua";

// The fields naming outputs, then status: what read_output_owners asks of each hash.
const Args& owner_fields() {
    static const Args fields = [] {
        Args f;
        for (int size : core::k_thumbnail_sizes) f.push_back(core::thumbnail_field(size));
        f.push_back("extracted_text_key");
        f.push_back("status");
        return f;
    }();
    return fields;
}

std::string str_of(const Reply& r) {
    return r.type == Reply::Type::string ? r.str : std::string();
}

} // namespace

std::string append_delete_event(Redis& redis, const QueueNames& names, const std::string& file_id) {
    return checked(redis.command({"XADD", names.stream, "*", "file_id", file_id, "op", "delete"}), "XADD").str;
}

void scan_tombstones(Redis& redis, const QueueNames& names, const std::function<void(const Tombstone&)>& visit) {
    const std::string pattern = names.metadata_key("*");
    const std::size_t id_offset = names.metadata_key("").size();
    std::string cursor = "0";
    do {
        const Reply r = checked(redis.command({"SCAN", cursor, "MATCH", pattern, "COUNT", k_scan_count}), "SCAN");
        if (!r.is_array() || r.elements.size() < 2) break;
        cursor = r.elements[0].str;
        std::vector<Args> reads;
        for (const auto& k : r.elements[1].elements) {
            reads.push_back({"HMGET", k.str, "status", "event_id", "deleted_at", "storage_key"});
        }
        if (reads.empty()) continue;
        const std::vector<Reply> got = redis.pipeline(reads);
        for (std::size_t i = 0; i < got.size(); ++i) {
            const auto& f = got[i].elements;
            if (f.size() < 4 || str_of(f[0]) != "deleted" || str_of(f[3]).empty()) continue;
            visit({reads[i][1].substr(id_offset), str_of(f[1]), str_of(f[2]), str_of(f[3])});
        }
    } while (cursor != "0");
}

bool forget_original(Redis& redis, const QueueNames& names, const Tombstone& tombstone) {
    static const Script forget(k_forget);
    const Reply r = checked(
        forget.call(redis, {names.metadata_key(tombstone.file_id)}, {tombstone.event_id, tombstone.storage_key}),
        "forgetting a deleted file's storage_key");
    return r.type == Reply::Type::integer && r.integer == 1;
}

std::vector<OutputOwner> read_output_owners(Redis& redis, const QueueNames& names,
                                            const std::vector<std::string>& file_ids) {
    const Args& fields = owner_fields();
    std::vector<Args> reads;
    for (const auto& id : file_ids) {
        Args hmget = {"HMGET", names.metadata_key(id)};
        hmget.insert(hmget.end(), fields.begin(), fields.end());
        reads.push_back(std::move(hmget));
        reads.push_back({"EXISTS", names.metadata_key(id)});
    }
    const std::vector<Reply> got = redis.pipeline(reads);
    std::vector<OutputOwner> owners(file_ids.size());
    for (std::size_t i = 0; i < owners.size() && 2 * i + 1 < got.size(); ++i) {
        const Reply& values = got[2 * i];
        owners[i].exists = got[2 * i + 1].type == Reply::Type::integer && got[2 * i + 1].integer == 1;
        if (values.is_error()) owners[i].status = "?"; // a key of another type: not ours to judge
        for (std::size_t f = 0; f < values.elements.size() && f < fields.size(); ++f) {
            const std::string v = str_of(values.elements[f]);
            if (fields[f] == "status")
                owners[i].status = v;
            else if (!v.empty())
                owners[i].outputs.push_back(v);
        }
    }
    return owners;
}

} // namespace jobs

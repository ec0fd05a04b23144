#include "core/layout.hpp"
#include "jobs/fleet_reads.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"

#include <array>

namespace worker::http {
namespace {

constexpr int k_recent_files = 30; // rows of /v1/recent
constexpr int k_recent_scan = 300; // results-stream entries read to find them

// The row fields the dashboard reads, in the order of the JSON it gets.
struct RowField {
    const char* name;
    std::optional<std::string> jobs::RecentFile::*member;
};
constexpr std::array<RowField, 7> k_row_fields{{
    {"status", &jobs::RecentFile::status},
    {"name", &jobs::RecentFile::name},
    {"content_type", &jobs::RecentFile::content_type},
    {"size_bytes", &jobs::RecentFile::size_bytes},
    {"finished_at", &jobs::RecentFile::finished_at},
    {"error_code", &jobs::RecentFile::error_code},
    {"error", &jobs::RecentFile::error},
}};

nlohmann::ordered_json row(const jobs::RecentFile& file) {
    nlohmann::ordered_json r = nlohmann::ordered_json::object();
    r["file_id"] = file.file_id;
    for (const auto& f : k_row_fields) {
        if (const auto& value = file.*f.member) r[f.name] = *value;
    }
    if (file.has_thumbnail) {
        r["thumbnail"] = "/v1/files/" + file.file_id + "/thumbnail/" + std::to_string(core::k_thumbnail_sizes.front());
    }
    if (file.event_id) r["event_id"] = *file.event_id;
    return r;
}

} // namespace

Response recent_files(const Request&, ServerContext& context, jobs::Redis& redis) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& file : jobs::read_recent_files(redis, context.names, k_recent_files, k_recent_scan)) {
        rows.push_back(row(file));
    }
    return json(beast_http::status::ok, rows);
}

} // namespace worker::http

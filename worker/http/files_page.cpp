// /files: the files whose status changed lately, server-rendered, with filters (status,
// type, error code) and a search by file id or name.
#include "jobs/event.hpp"
#include "jobs/fleet_reads.hpp"
#include "jobs/metadata.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"
#include "worker/http/html.hpp"

#include <algorithm>

namespace worker::http {
namespace {

constexpr int k_list_rows = 200;  // rows at most
constexpr int k_list_scan = 5000; // results-stream entries read to find them

struct Filters {
    std::string status, type, code, q;
};

bool contains(const std::optional<std::string>& field, const std::string& part) {
    return field && field->find(part) != std::string::npos;
}

bool matches(const jobs::RecentFile& f, const Filters& w) {
    if (!w.status.empty() && f.status.value_or("") != w.status) return false;
    if (!w.type.empty() && !contains(f.content_type, w.type)) return false;
    if (!w.code.empty() && f.error_code.value_or("") != w.code) return false;
    return w.q.empty() || f.file_id.find(w.q) != std::string::npos || contains(f.name, w.q);
}

std::string field_input(const char* name, const std::string& value, const char* hint) {
    return std::string("<label>") + name + " <input name=\"" + name + "\" value=\"" + escape(value) +
           "\" placeholder=\"" + hint + "\"></label> ";
}

std::string row(const jobs::RecentFile& f) {
    const std::string status = f.status.value_or("");
    const std::string error = f.error_code ? *f.error_code + ": " + f.error.value_or("") : "";
    return "<tr data-file-id=\"" + escape(f.file_id) + "\"><td><a href=\"/files/" + escape(f.file_id) + "\">" +
           escape(f.name.value_or(f.file_id)) + "</a><br><code>" + escape(f.file_id) + "</code></td><td>" +
           escape(f.content_type.value_or("")) + "</td><td class=\"status st-" + escape(status) + "\">" +
           escape(status) + "</td><td>" + escape(f.finished_at.value_or("")) + "</td><td class=\"err\">" +
           escape(error) + "</td></tr>";
}

} // namespace

Response files_page(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const Filters w{query_value(request.query, "status"), query_value(request.query, "type"),
                    query_value(request.query, "code"), query_value(request.query, "q")};
    std::vector<jobs::RecentFile> files = jobs::read_recent_files(redis, context.names, 1000, k_list_scan);
    // An id typed whole finds its file even when it changed long ago.
    const bool listed = std::any_of(files.begin(), files.end(), [&](const auto& f) { return f.file_id == w.q; });
    if (!listed && jobs::valid_file_id(w.q) && jobs::read_metadata(redis, context.names, w.q)) {
        return Response{
            beast_http::status::see_other, "text/plain", "", {{beast_http::field::location, "/files/" + w.q}}};
    }
    std::string rows;
    int shown = 0;
    for (const auto& f : files) {
        if (shown < k_list_rows && matches(f, w)) {
            rows += row(f);
            ++shown;
        }
    }
    std::string body = "<form method=\"get\" action=\"/files\" id=\"filters\">" +
                       field_input("q", w.q, "file id or name") + field_input("status", w.status, "done, failed…") +
                       field_input("type", w.type, "pdf, image/…") + field_input("code", w.code, "corrupt_file…") +
                       "<button>Filter</button></form>";
    body += "<p>" + std::to_string(shown) +
            " files</p><table id=\"files\"><thead><tr><th>file</th><th>type</th>"
            "<th>status</th><th>finished</th><th>error</th></tr></thead><tbody>" +
            rows + "</tbody></table>";
    return html_page("Files", body);
}

} // namespace worker::http

// /dead: the dead-letter stream, server-rendered, with retry and purge buttons for one entry
// or all (actions: INGEST_HTTP_TOKEN).
#include "jobs/admin.hpp"
#include "jobs/metadata.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"
#include "worker/http/html.hpp"

namespace worker::http {
namespace {

std::string button(const std::string& action, const std::string& file_id, const std::string& label) {
    const std::string query = file_id.empty() ? "" : "?file_id=" + escape(file_id);
    return "<form class=\"inline\" method=\"post\" action=\"/dead/" + action + query + "\"><button>" + label +
           "</button></form> ";
}

} // namespace

Response dead_page(const Request&, ServerContext& context, jobs::Redis& redis) {
    const auto letters = jobs::list_dead_letters(redis, context.names);
    std::string rows;
    for (const auto& letter : letters) {
        const std::string file_id = jobs::field_value(letter.fields, "file_id");
        const std::string actions = jobs::valid_file_id(file_id)
                                        ? button("retry", file_id, "Retry") + button("purge", file_id, "Purge")
                                        : std::string();
        rows += "<tr data-dead-id=\"" + escape(letter.dead_id) + "\"><td><code>" + escape(file_id) +
                "</code></td><td>" + escape(jobs::field_value(letter.fields, "dead_reason")) + "</td><td>" +
                escape(jobs::field_value(letter.fields, "dead_deliveries")) + "</td><td><code>" +
                escape(letter.dead_id) + "</code></td><td>" + actions + "</td></tr>";
    }
    std::string body = "<p>" + std::to_string(letters.size()) + " dead letters. " + button("retry", "", "Retry all") +
                       button("purge", "", "Purge all") + "</p>";
    body += "<table id=\"dead\"><thead><tr><th>file</th><th>reason</th><th>deliveries</th><th>dead id</th><th></th>"
            "</tr></thead><tbody>" +
            rows + "</tbody></table>";
    return html_page("Dead letters", body);
}

} // namespace worker::http

// The dashboard's actions (POST from its buttons): each runs the JSON action of the same
// name and confirms what it did on a page of its own.
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"
#include "worker/http/html.hpp"

namespace worker::http {
namespace {

// The confirmation page of an action's JSON answer `done`.
Response confirm(const std::string& title, const Response& done, const std::string& back) {
    const auto j = nlohmann::json::parse(done.body, nullptr, false);
    std::string what;
    if (done.status != beast_http::status::ok || j.is_discarded()) {
        what = "<p class=\"err\">Nothing was done: " + escape(done.body) + "</p>";
    } else if (j.contains("entries")) {
        what = "<p class=\"note\" id=\"done\">" + escape(std::to_string(j["count"].get<long long>())) +
               " dead letters handled.</p><ul>";
        for (const auto& e : j["entries"]) {
            const std::string outcome = e.contains("event_id")
                                            ? "re-queued as event " + e["event_id"].get<std::string>()
                                        : e.contains("skipped") ? "skipped: " + e["skipped"].get<std::string>()
                                                                : "deleted";
            what += "<li><code>" + escape(e["file_id"].get<std::string>()) + "</code> " + escape(outcome) + "</li>";
        }
        what += "</ul>";
    } else {
        what = "<p class=\"note\" id=\"done\">File <code>" + escape(j["file_id"].get<std::string>()) +
               "</code> re-queued as event <code>" + escape(j["event_id"].get<std::string>()) + "</code>.</p>";
    }
    return html_page(title, what + "<p><a href=\"" + escape(back) + "\">Back</a></p>", done.status);
}

} // namespace

Response retry_file_page(const Request& request, ServerContext& context, jobs::Redis& redis) {
    return confirm("Retry", retry_file_action(request, context, redis), "/files/" + request.params.at("id"));
}

Response retry_dead_page(const Request& request, ServerContext& context, jobs::Redis& redis) {
    return confirm("Retry dead letters", retry_dead_action(request, context, redis), "/dead");
}

Response purge_dead_page(const Request& request, ServerContext& context, jobs::Redis& redis) {
    return confirm("Purge dead letters", purge_dead_action(request, context, redis), "/dead");
}

} // namespace worker::http

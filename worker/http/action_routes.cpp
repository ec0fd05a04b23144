// The POST actions (spec "HTTP"): retry a file, retry or purge dead letters. Each answers
// with what it did, as JSON. The routes are Access::action: only with INGEST_HTTP_TOKEN.
#include "jobs/admin.hpp"
#include "jobs/dead_letters.hpp"
#include "jobs/event.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"
#include "worker/http/html.hpp"

#include <optional>
#include <stdexcept>

namespace worker::http {
namespace {

nlohmann::ordered_json letter_json(const jobs::DeadLetter& letter) {
    return {{"file_id", jobs::field_value(letter.fields, "file_id")},
            {"dead_id", letter.dead_id},
            {"dead_reason", jobs::field_value(letter.fields, "dead_reason")}};
}

// The answer of a dead-letter action: what it did, and the asked ids that had no letter (404
// when nothing at all was found for them).
Response dead_answer(const char* action, nlohmann::ordered_json done, const std::set<std::string>& unseen, bool asked) {
    nlohmann::ordered_json j = {{"action", action}, {"count", done.size()}, {"entries", std::move(done)}};
    j["unknown"] = nlohmann::ordered_json::array();
    for (const auto& id : unseen) j["unknown"].push_back(id);
    const bool nothing = asked && j["count"] == 0;
    return json(nothing ? beast_http::status::not_found : beast_http::status::ok, j);
}

// The file ids an action names: `file_id` in the query string, and in the body either a JSON
// object (`{"file_ids": [...]}` or `{"file_id": "..."}`) or a form (`file_id=a&file_id=b`).
struct AskedIds {
    std::vector<std::string> ids;
    bool asked = false;          ///< some were named (an empty JSON list names none: nothing is done)
    std::optional<Response> bad; ///< the body could not be read
};

void add_json_ids(const nlohmann::json& value, AskedIds& asked) {
    const auto values = value.is_array() ? value : nlohmann::json::array({value});
    for (const auto& v : values) {
        if (!v.is_string()) throw std::invalid_argument("a file id is not a string");
        asked.ids.push_back(v.get<std::string>());
    }
    asked.asked = true;
}

AskedIds asked_ids(const Request& request) {
    AskedIds asked;
    asked.ids = query_values(request.query, "file_id");
    asked.asked = !asked.ids.empty();
    if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return asked;
    if (request.content_type.rfind("application/x-www-form-urlencoded", 0) == 0) {
        for (auto& id : query_values(request.body, "file_id")) asked.ids.push_back(std::move(id));
        asked.asked = asked.asked || !asked.ids.empty();
        return asked;
    }
    try {
        const auto body = nlohmann::json::parse(request.body);
        if (!body.is_object()) throw std::invalid_argument("the body is not a JSON object");
        for (const char* key : {"file_ids", "file_id"}) {
            if (body.contains(key)) add_json_ids(body.at(key), asked);
        }
    } catch (const std::exception&) {
        asked.bad = json(beast_http::status::bad_request,
                         {{"error", "bad_request"},
                          {"message", R"(the body must be a JSON object such as {"file_ids": ["ID", ...]})"}});
    }
    return asked;
}

} // namespace

Response retry_file_action(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const std::string& id = request.params.at("id");
    const auto event_id = jobs::retry_file(redis, context.names, id);
    if (!event_id) return json(beast_http::status::not_found, {{"error", "unknown_file"}, {"file_id", id}});
    return json(beast_http::status::ok, {{"action", "retry"}, {"file_id", id}, {"event_id", *event_id}});
}

Response retry_dead_action(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const AskedIds asked = asked_ids(request);
    if (asked.bad) return *asked.bad;
    if (asked.asked && asked.ids.empty()) return dead_answer("dead_retry", nlohmann::ordered_json::array(), {}, false);
    const std::vector<std::string>& ids = asked.ids;
    std::set<std::string> unseen;
    nlohmann::ordered_json done = nlohmann::ordered_json::array();
    for (const auto& letter : jobs::dead_letters_of(redis, context.names, ids, unseen)) {
        const jobs::DeadOutcome outcome = jobs::retry_dead_letter(redis, context.names, letter);
        nlohmann::ordered_json entry = letter_json(letter);
        if (outcome.skipped.empty()) {
            entry["event_id"] = outcome.event_id;
        } else {
            entry["skipped"] = outcome.skipped;
        }
        done.push_back(std::move(entry));
    }
    return dead_answer("dead_retry", std::move(done), unseen, !ids.empty());
}

Response purge_dead_action(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const AskedIds asked = asked_ids(request);
    if (asked.bad) return *asked.bad;
    if (asked.asked && asked.ids.empty()) return dead_answer("dead_purge", nlohmann::ordered_json::array(), {}, false);
    const std::vector<std::string>& ids = asked.ids;
    std::set<std::string> unseen;
    nlohmann::ordered_json done = nlohmann::ordered_json::array();
    for (const auto& letter : jobs::dead_letters_of(redis, context.names, ids, unseen)) {
        if (jobs::purge_dead_letter(redis, context.names, letter)) done.push_back(letter_json(letter));
    }
    return dead_answer("dead_purge", std::move(done), unseen, !ids.empty());
}

} // namespace worker::http

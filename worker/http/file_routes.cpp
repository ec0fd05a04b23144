// A file's metadata and its thumbnails; both read Redis (and storage), so they run on the
// reader thread.
#include "core/layout.hpp"
#include "jobs/event.hpp"
#include "jobs/metadata.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"

namespace worker::http {
namespace {

constexpr std::uint64_t k_max_thumbnail_bytes = 64 << 20;
constexpr int k_presigned_seconds = 15 * 60; // INGEST_THUMBNAIL_REDIRECT=on: the URL is valid 15 minutes

Response unknown_file() {
    return text(beast_http::status::not_found, "unknown file\n");
}

bool deleted(const jobs::Fields& meta) {
    return jobs::field_value(meta, "status") == "deleted";
}

} // namespace

Response file_metadata(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const std::string& id = request.params.at("id");
    if (!jobs::valid_file_id(id)) return unknown_file();
    const auto meta = jobs::read_metadata(redis, context.names, id);
    if (!meta) return unknown_file();
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [k, v] : *meta) j[k] = v;
    // A deleted file answers 410 Gone, with its tombstone for the curious.
    return json(deleted(*meta) ? beast_http::status::gone : beast_http::status::ok, j);
}

Response file_thumbnail(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const std::optional<int> size = core::parse_thumbnail_size(request.params.at("size"));
    if (!size) return text(beast_http::status::not_found, "no such thumbnail size\n");
    const std::string& id = request.params.at("id");
    if (!jobs::valid_file_id(id)) return unknown_file();
    const auto meta = jobs::read_metadata(redis, context.names, id);
    if (!meta) return unknown_file();
    if (deleted(*meta)) return text(beast_http::status::gone, "file deleted\n");
    const std::string key = jobs::field_value(*meta, core::thumbnail_field(*size));
    if (key.empty()) return text(beast_http::status::not_found, "no thumbnail\n");
    if (context.config.thumbnail_redirect) {
        if (auto url = context.store->presigned_url(key, k_presigned_seconds)) {
            Response r{beast_http::status::found, "text/plain", "", {}};
            r.headers = {{beast_http::field::location, *url}, {beast_http::field::cache_control, "no-store"}};
            return r;
        }
    }
    std::string bytes;
    try {
        bytes = context.store->read_all(key, k_max_thumbnail_bytes);
    } catch (const std::exception&) {
        return text(beast_http::status::not_found, "thumbnail missing from storage\n");
    }
    const std::string etag = "\"" + jobs::field_value(*meta, "content_hash") + "-" + std::to_string(*size) + "-" +
                             std::to_string(bytes.size()) + "\"";
    Response r{beast_http::status::ok, "image/webp", std::move(bytes), {}};
    r.headers = {{beast_http::field::etag, etag}, {beast_http::field::cache_control, "private, max-age=3600"}};
    if (request.if_none_match == etag) {
        r.status = beast_http::status::not_modified;
        r.content_type.clear();
        r.body.clear();
    }
    return r;
}

} // namespace worker::http

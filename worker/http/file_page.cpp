// /files/<id>: one file's page, server-rendered: its metadata as a table, step errors, its
// thumbnails, the first few KB of its text, attempts and timings, the raw JSON behind a
// link, and a retry button (an action: INGEST_HTTP_TOKEN).
#include "core/layout.hpp"
#include "jobs/event.hpp"
#include "jobs/metadata.hpp"
#include "worker/http/context.hpp"
#include "worker/http/handlers.hpp"
#include "worker/http/html.hpp"

namespace worker::http {
namespace {

constexpr std::size_t k_text_preview = 4096; // bytes of extracted text shown

// The first `n` bytes of `text`, not cutting a UTF-8 sequence.
std::string head_of(const std::string& text, std::size_t n) {
    if (text.size() <= n) return text;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return text.substr(0, n);
}

std::string row(const std::string& key, const std::string& value, const std::string& cls = "") {
    return "<tr><th>" + escape(key) + "</th><td" + (cls.empty() ? "" : " class=\"" + cls + "\"") + ">" + escape(value) +
           "</td></tr>";
}

std::string errors_section(const jobs::Fields& meta) {
    std::string out;
    for (const char* step : {"extraction", "thumbnail"}) {
        const std::string code = jobs::field_value(meta, std::string(step) + "_error_code");
        if (code.empty()) continue;
        out += row(std::string(step) + " failed", code + ": " + jobs::field_value(meta, std::string(step) + "_error"),
                   "err");
    }
    const std::string code = jobs::field_value(meta, "error_code");
    if (!code.empty()) out += row("first failure", code + ": " + jobs::field_value(meta, "error"), "err");
    return out.empty() ? "" : "<h2>Errors</h2><table id=\"errors\">" + out + "</table>";
}

std::string thumbnails_section(const std::string& id, const jobs::Fields& meta) {
    std::string out;
    for (int size : core::k_thumbnail_sizes) {
        if (jobs::field_value(meta, core::thumbnail_field(size)).empty()) continue;
        out += "<img alt=\"" + std::to_string(size) + " px\" src=\"/v1/files/" + escape(id) + "/thumbnail/" +
               std::to_string(size) + "\"> ";
    }
    return out.empty() ? "" : "<h2>Thumbnails</h2><p id=\"thumbnails\">" + out + "</p>";
}

} // namespace

Response file_page(const Request& request, ServerContext& context, jobs::Redis& redis) {
    const std::string& id = request.params.at("id");
    const auto meta = jobs::valid_file_id(id) ? jobs::read_metadata(redis, context.names, id) : std::nullopt;
    if (!meta) {
        return html_page("Unknown file", "<p>No metadata for <code>" + escape(id) + "</code>.</p>",
                         beast_http::status::not_found);
    }
    const std::string status = jobs::field_value(*meta, "status");
    std::string body = "<p>Status <b class=\"st-" + escape(status) + "\" id=\"status\">" + escape(status) +
                       "</b> · <a href=\"/v1/files/" + escape(id) + "\">raw JSON</a></p>";
    body += "<form class=\"inline\" method=\"post\" action=\"/files/" + escape(id) +
            "/retry\"><button id=\"retry\">Retry this file</button></form>";
    body += errors_section(*meta) + thumbnails_section(id, *meta);
    body += "<h2>Metadata</h2><table id=\"metadata\">";
    for (const auto& [k, v] : *meta) {
        if (k != "extracted_text") body += row(k, v);
    }
    body += "</table>";
    const std::string text = jobs::field_value(*meta, "extracted_text");
    if (!text.empty()) {
        body += "<h2>Text (first " + std::to_string(std::min(text.size(), k_text_preview)) + " of " +
                std::to_string(text.size()) + " bytes inline)</h2><pre id=\"text\">" +
                escape(head_of(text, k_text_preview)) + "</pre>";
    }
    const std::string name = jobs::field_value(*meta, "name");
    return html_page(name.empty() ? id : name + " (" + id + ")", body);
}

} // namespace worker::http

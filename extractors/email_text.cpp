#include "extractors/email_text.hpp"

#include "extractors/html_text.hpp"
#include "extractors/text_clean.hpp"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <gmime/gmime.h>

namespace extractors {
namespace {

struct GObjectUnref {
    void operator()(void* p) const {
        if (p != nullptr) g_object_unref(p);
    }
};
template <typename T> using GPtr = std::unique_ptr<T, GObjectUnref>;

struct GFree {
    void operator()(char* p) const { g_free(p); }
};
using GString = std::unique_ptr<char, GFree>;

void init_gmime() {
    static std::once_flag once;
    std::call_once(once, [] { g_mime_init(); });
}

// What the walk over a message's parts found.
struct Parts {
    std::string plain;
    std::string html;
    bool has_plain = false;
    bool has_html = false;
    std::vector<std::string> attachments;
};

std::string text_of(GMimeTextPart* part) {
    const GString text(g_mime_text_part_get_text(part));
    return text ? std::string(text.get()) : std::string();
}

void visit_part(GMimeObject*, GMimeObject* part, gpointer data) {
    auto& found = *static_cast<Parts*>(data);
    if (GMIME_IS_MESSAGE_PART(part)) {
        GMimeMessage* inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));
        const char* subject = inner != nullptr ? g_mime_message_get_subject(inner) : nullptr;
        found.attachments.emplace_back(subject != nullptr ? std::string(subject) + " (message)" : "(message)");
        return;
    }
    if (!GMIME_IS_PART(part)) return;
    GMimePart* leaf = GMIME_PART(part);
    const char* filename = g_mime_part_get_filename(leaf);
    if (g_mime_part_is_attachment(leaf) || filename != nullptr) {
        found.attachments.emplace_back(filename != nullptr ? filename : "(unnamed)");
        return;
    }
    if (!GMIME_IS_TEXT_PART(part)) return;
    GMimeContentType* type = g_mime_object_get_content_type(part);
    if (g_mime_content_type_is_type(type, "text", "plain") && !found.has_plain) {
        found.plain = text_of(GMIME_TEXT_PART(part));
        found.has_plain = true;
    } else if (g_mime_content_type_is_type(type, "text", "html") && !found.has_html) {
        found.html = text_of(GMIME_TEXT_PART(part));
        found.has_html = true;
    }
}

void header_line(std::string& out, const char* name, const char* value) {
    if (value == nullptr || *value == '\0') return;
    out += name;
    out += ": ";
    out += value;
    out += '\n';
}

void address_line(std::string& out, const char* name, InternetAddressList* list) {
    if (list == nullptr || internet_address_list_length(list) == 0) return;
    const GString text(internet_address_list_to_string(list, nullptr, FALSE));
    header_line(out, name, text.get());
}

std::string message_text(GMimeMessage* message, const core::Options& options) {
    std::string out;
    address_line(out, "From", g_mime_message_get_from(message));
    address_line(out, "To", g_mime_message_get_to(message));
    address_line(out, "Cc", g_mime_message_get_cc(message));
    header_line(out, "Date", g_mime_object_get_header(GMIME_OBJECT(message), "Date"));
    header_line(out, "Subject", g_mime_message_get_subject(message));
    Parts parts;
    if (GMimeObject* body = g_mime_message_get_mime_part(message)) {
        if (GMIME_IS_MULTIPART(body)) {
            g_mime_multipart_foreach(GMIME_MULTIPART(body), visit_part, &parts);
        } else {
            visit_part(nullptr, body, &parts);
        }
    }
    std::string body = parts.has_plain ? parts.plain : html_visible_text(parts.html, options, "UTF-8");
    while (!body.empty() && (body.back() == '\n' || body.back() == ' ' || body.back() == '\r')) body.pop_back();
    if (!body.empty()) out += "\n" + body + "\n";
    if (!parts.attachments.empty()) out += "\n";
    for (const auto& name : parts.attachments) out += "Attachment: " + name + "\n";
    return out;
}

} // namespace

TextResult extract_email_text(std::span<const unsigned char> bytes, bool mbox, const TextOptions& options) {
    init_gmime();
    TextResult result;
    result.method = "document";
    GPtr<GMimeStream> stream(
        g_mime_stream_mem_new_with_buffer(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    GPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
    g_mime_parser_set_format(parser.get(), mbox ? GMIME_FORMAT_MBOX : GMIME_FORMAT_MESSAGE);
    std::string text;
    int messages = 0;
    while (!g_mime_parser_eos(parser.get())) {
        GPtr<GMimeMessage> message(g_mime_parser_construct_message(parser.get(), nullptr));
        if (!message) break;
        if (messages++ > 0) {
            while (!text.empty() && text.back() == '\n') text.pop_back();
            text += '\f';
        }
        text += message_text(message.get(), options);
        if (!mbox) break;
    }
    if (messages == 0) {
        result.error = StepError{core::ErrorCode::corrupt_file, "The e-mail cannot be parsed as a message."};
        return result;
    }
    while (!text.empty() && text.back() == '\n') text.pop_back();
    result.text = clean_text(text);
    return result;
}

} // namespace extractors

#include "worker/storage/s3_xml.hpp"

#include <memory>

#include <libxml/parser.h>
#include <libxml/tree.h>

namespace worker {
namespace {

using Doc = std::unique_ptr<xmlDoc, void (*)(xmlDoc*)>;

Doc parse(const std::string& xml) {
    // No network, no entities, no DTD: a reply is data, never a reference to fetch.
    xmlDoc* doc = xmlReadMemory(xml.data(), static_cast<int>(xml.size()), "reply.xml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    return Doc(doc, xmlFreeDoc);
}

bool named(const xmlNode* n, const char* name) {
    return n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, reinterpret_cast<const xmlChar*>(name)) == 0;
}

std::string text_of(const xmlNode* n) {
    xmlChar* c = xmlNodeGetContent(n);
    std::string s = c != nullptr ? reinterpret_cast<const char*>(c) : "";
    xmlFree(c);
    return s;
}

} // namespace

std::string s3_error_hint(const std::string& code) {
    static const std::pair<const char*, const char*> hints[] = {
        {"SignatureDoesNotMatch", "check AWS_SECRET_ACCESS_KEY"},
        {"InvalidAccessKeyId", "check AWS_ACCESS_KEY_ID"},
        {"RequestTimeTooSkewed", "check this host's clock, it differs from the server's"},
        {"AuthorizationHeaderMalformed", "check AWS_REGION"},
        {"AuthorizationQueryParametersError", "check AWS_REGION"},
        {"PermanentRedirect", "check AWS_REGION"},
        {"ExpiredToken", "AWS_SESSION_TOKEN has expired"},
        {"InvalidToken", "check AWS_SESSION_TOKEN"},
    };
    for (const auto& [c, hint] : hints) {
        if (code == c) return hint;
    }
    return "";
}

S3ErrorReply parse_s3_error(const std::string& xml) {
    S3ErrorReply e;
    if (xml.empty()) return e;
    Doc doc = parse(xml);
    const xmlNode* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (root == nullptr || !named(root, "Error")) return e;
    for (const xmlNode* n = root->children; n != nullptr; n = n->next) {
        if (named(n, "Code")) e.code = text_of(n);
        if (named(n, "Message")) e.message = text_of(n);
    }
    return e;
}

bool parse_s3_list(const std::string& xml, S3ListPage& page) {
    Doc doc = parse(xml);
    const xmlNode* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (root == nullptr || !named(root, "ListBucketResult")) return false;
    for (const xmlNode* n = root->children; n != nullptr; n = n->next) {
        if (named(n, "IsTruncated")) page.truncated = text_of(n) == "true";
        if (named(n, "NextContinuationToken")) page.next_token = text_of(n);
        if (!named(n, "Contents")) continue;
        for (const xmlNode* c = n->children; c != nullptr; c = c->next) {
            if (named(c, "Key")) page.keys.push_back(text_of(c));
        }
    }
    return true;
}

bool parse_s3_delete_result(const std::string& xml, std::vector<S3DeleteError>& errors) {
    Doc doc = parse(xml);
    const xmlNode* root = doc ? xmlDocGetRootElement(doc.get()) : nullptr;
    if (root == nullptr || !named(root, "DeleteResult")) return false;
    for (const xmlNode* n = root->children; n != nullptr; n = n->next) {
        if (!named(n, "Error")) continue;
        S3DeleteError e;
        for (const xmlNode* c = n->children; c != nullptr; c = c->next) {
            if (named(c, "Key")) e.key = text_of(c);
            if (named(c, "Code")) e.code = text_of(c);
            if (named(c, "Message")) e.message = text_of(c);
        }
        errors.push_back(std::move(e));
    }
    return true;
}

std::string s3_delete_body(const std::vector<std::string>& keys) {
    std::string body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Delete><Quiet>true</Quiet>";
    for (const auto& key : keys) {
        body += "<Object><Key>";
        for (const char c : key) {
            switch (c) {
            case '&':
                body += "&amp;";
                break;
            case '<':
                body += "&lt;";
                break;
            case '>':
                body += "&gt;";
                break;
            case '"':
                body += "&quot;";
                break;
            case '\'':
                body += "&apos;";
                break;
            default:
                body += c;
            }
        }
        body += "</Key></Object>";
    }
    return body + "</Delete>";
}

} // namespace worker

#include "extractors/xml_reader.hpp"

#include "extractors/document_error.hpp"

#include <mutex>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>

namespace extractors {
namespace {

// No entity, DTD or schema is ever fetched, whatever a document asks for.
xmlParserInputPtr no_external_entities(const char*, const char*, xmlParserCtxtPtr) {
    return nullptr;
}

void ignore_errors(void*, const char*, ...) {}
void ignore_structured(void*, xmlErrorPtr) {}

void init_libxml() {
    static std::once_flag once;
    std::call_once(once, [] {
        xmlInitParser();
        xmlSetExternalEntityLoader(no_external_entities);
    });
    // Per thread: libxml2 prints parse errors to stderr by default.
    xmlSetGenericErrorFunc(nullptr, ignore_errors);
    xmlSetStructuredErrorFunc(nullptr, ignore_structured);
}

// Documents' parts never declare entities; one that does is refused before libxml2 sees it.
bool declares_entities(std::string_view bytes) {
    const std::size_t doctype = bytes.find("<!DOCTYPE");
    return doctype != std::string_view::npos && bytes.find("<!ENTITY", doctype) != std::string_view::npos;
}

void check_depth(const xmlNode* node, int depth, int max_depth, const std::string& part) {
    if (depth > max_depth) {
        throw DocumentError(core::ErrorCode::corrupt_file, "The document's part " + part +
                                                               " nests elements deeper than " +
                                                               std::to_string(max_depth) + " levels.");
    }
    for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
        if (c->type == XML_ELEMENT_NODE) check_depth(c, depth + 1, max_depth, part);
    }
}

void append_content(const xmlNode* node, int depth, int max_depth, std::string& out) {
    if (depth > max_depth) return;
    for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
        if (c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) {
            if (c->content != nullptr) out += reinterpret_cast<const char*>(c->content);
        } else if (c->type == XML_ELEMENT_NODE) {
            append_content(c, depth + 1, max_depth, out);
        }
    }
}

} // namespace

XmlDoc parse_xml(std::string_view bytes, const std::string& part, const core::Options& options) {
    init_libxml();
    if (declares_entities(bytes)) {
        throw DocumentError(core::ErrorCode::corrupt_file,
                            "The document's part " + part + " declares XML entities, which documents never use.");
    }
    const int flags = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOCDATA;
    XmlDoc doc(xmlReadMemory(bytes.data(), static_cast<int>(bytes.size()), part.c_str(), nullptr, flags));
    if (!doc || xmlDocGetRootElement(doc.get()) == nullptr) {
        const xmlError* e = xmlGetLastError();
        if (e != nullptr && e->code == XML_ERR_NO_MEMORY) throw std::bad_alloc();
        throw DocumentError(core::ErrorCode::corrupt_file, "The document's part " + part + " is not well-formed XML.");
    }
    check_depth(xmlDocGetRootElement(doc.get()), 1, options.max_xml_depth, part);
    return doc;
}

XmlDoc parse_html(std::string_view bytes, const char* encoding) {
    init_libxml();
    const int flags =
        HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_RECOVER | HTML_PARSE_COMPACT;
    return XmlDoc(htmlReadMemory(bytes.data(), static_cast<int>(bytes.size()), nullptr, encoding, flags));
}

namespace {

std::string attribute_value(const xmlNode* node, std::string_view name, bool namespaced) {
    for (const xmlAttr* a = node->properties; a != nullptr; a = a->next) {
        if (a->name == nullptr || std::string_view(reinterpret_cast<const char*>(a->name)) != name) continue;
        if (namespaced && a->ns == nullptr) continue;
        std::string value;
        for (const xmlNode* c = a->children; c != nullptr; c = c->next) {
            if (c->type == XML_TEXT_NODE && c->content != nullptr) value += reinterpret_cast<const char*>(c->content);
        }
        return value;
    }
    return {};
}

} // namespace

std::string attribute(const xmlNode* node, std::string_view name) {
    return attribute_value(node, name, false);
}

std::string namespaced_attribute(const xmlNode* node, std::string_view name) {
    return attribute_value(node, name, true);
}

std::vector<const xmlNode*> children(const xmlNode* node, std::string_view name) {
    std::vector<const xmlNode*> out;
    if (node == nullptr) return out;
    for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
        if (c->type == XML_ELEMENT_NODE && (name.empty() || local_name(c) == name)) out.push_back(c);
    }
    return out;
}

const xmlNode* find_descendant(const xmlNode* node, std::string_view name, int max_depth) {
    if (node == nullptr || max_depth < 0) return nullptr;
    for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (local_name(c) == name) return c;
        if (const xmlNode* found = find_descendant(c, name, max_depth - 1)) return found;
    }
    return nullptr;
}

std::string plain_content(const xmlNode* node, int max_depth) {
    std::string out;
    if (node != nullptr) append_content(node, 0, max_depth, out);
    return out;
}

} // namespace extractors

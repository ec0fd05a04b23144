#pragma once

#include "core/options.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <libxml/tree.h>

namespace extractors {

/// A parsed XML or HTML document (libxml2), owned.
struct XmlFreeDoc {
    void operator()(xmlDoc* doc) const { xmlFreeDoc(doc); }
};
using XmlDoc = std::unique_ptr<xmlDoc, XmlFreeDoc>;

/// Parses one part of a document as untrusted XML: no network, no DTD loading, no external
/// or internal entity substitution (a part that declares entities is refused before
/// parsing, so billion-laughs never expands), nesting bounded by options.max_xml_depth and
/// libxml2's own limits. Throws DocumentError corrupt_file naming `part`.
XmlDoc parse_xml(std::string_view bytes, const std::string& part, const core::Options& options);

/// Parses HTML (or XHTML) with libxml2's HTML parser, recovering from bad markup, no
/// network. Never throws for bad markup; an empty document is nullptr.
XmlDoc parse_html(std::string_view bytes, const char* encoding = nullptr);

/// The element's local name ("p" for <w:p>).
inline std::string_view local_name(const xmlNode* node) {
    return node->name != nullptr ? std::string_view(reinterpret_cast<const char*>(node->name)) : std::string_view();
}

/// The value of the attribute with local name `name` (any namespace), or "".
std::string attribute(const xmlNode* node, std::string_view name);

/// The value of the attribute with local name `name` in some namespace ("r:id", not "id").
std::string namespaced_attribute(const xmlNode* node, std::string_view name);

/// The element children of `node` with local name `name` (all of them when empty).
std::vector<const xmlNode*> children(const xmlNode* node, std::string_view name = {});

/// The first descendant (depth-first, bounded depth) with local name `name`, or nullptr.
const xmlNode* find_descendant(const xmlNode* node, std::string_view name, int max_depth);

/// The concatenated text nodes under `node` (entity references ignored), bounded depth.
std::string plain_content(const xmlNode* node, int max_depth);

/// The document's root element, or nullptr.
inline const xmlNode* root_of(const XmlDoc& doc) {
    return doc ? xmlDocGetRootElement(doc.get()) : nullptr;
}

} // namespace extractors

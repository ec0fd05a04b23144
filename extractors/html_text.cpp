#include "extractors/html_text.hpp"

#include "extractors/text_clean.hpp"
#include "extractors/xml_reader.hpp"
#include "extractors/xml_text.hpp"

#include <cctype>

namespace extractors {
namespace {

const TextRules& html_rules() {
    static const TextRules rules{
        .blocks = {"p",       "div",     "h1",         "h2",      "h3",     "h4",       "h5",     "h6",
                   "li",      "dt",      "dd",         "ul",      "ol",     "dl",       "table",  "blockquote",
                   "pre",     "section", "article",    "header",  "footer", "nav",      "aside",  "main",
                   "address", "figure",  "figcaption", "hr",      "form",   "fieldset", "legend", "caption",
                   "body",    "title",   "option",     "details", "summary"},
        .rows = {"tr"},
        .cells = {"td", "th"},
        .skip = {"script", "style", "head", "noscript", "template", "svg", "math", "object", "iframe", "select"},
        .tabs = {},
        .breaks = {"br"},
        .spaces = {},
        .text_in = {},
        .collapse_white_space = true,
    };
    return rules;
}

// libxml2 reads HTML that names no charset as ISO-8859-1; today's pages without one are
// UTF-8.
const char* default_encoding(std::string_view html) {
    std::string head(html.substr(0, 2048));
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return head.find("charset") == std::string::npos && head.find("encoding=") == std::string::npos ? "UTF-8" : nullptr;
}

} // namespace

std::string html_visible_text(std::string_view html, const core::Options& options, const char* encoding) {
    if (html.empty()) return {};
    const XmlDoc doc = parse_html(html, encoding != nullptr ? encoding : default_encoding(html));
    if (!doc) return {};
    TextSink sink;
    // The document node itself: a fragment may have several top-level elements.
    write_text(reinterpret_cast<const xmlNode*>(doc.get()), html_rules(), options.max_xml_depth, sink);
    return clean_text(std::move(sink).take());
}

TextResult extract_html_text(std::span<const unsigned char> bytes, const TextOptions& options) {
    TextResult result;
    result.method = "markup";
    result.text =
        html_visible_text(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), options);
    return result;
}

} // namespace extractors

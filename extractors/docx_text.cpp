// WordprocessingML (DOCX, DOCM): the body, then headers, footers, footnotes, endnotes and
// comments, each paragraph on its line, table cells tab-separated.
#include "extractors/ooxml_package.hpp"
#include "extractors/xml_text.hpp"

#include <algorithm>

namespace extractors {
namespace {

const TextRules& word_rules() {
    static const TextRules rules{
        .blocks = {"p"},
        .rows = {"tr"},
        .cells = {"tc"},
        // Properties (tab stops are <w:tab> too), field codes, deleted text, the fallback copy
        // of alternate content, the separators of footnotes.
        .skip = {"pPr", "rPr", "tblPr", "tcPr", "trPr", "sectPr", "instrText", "delText", "Fallback", "del"},
        .tabs = {"tab", "ptab"},
        .breaks = {"br", "cr"},
        .spaces = {},
    };
    return rules;
}

// The main document part from the package relationships, "word/document.xml" by default.
std::string main_part(OoxmlPackage& package) {
    const std::string found = package.related("", "/officeDocument");
    return found.empty() ? "word/document.xml" : found;
}

void write_part(OoxmlPackage& package, const std::string& name, TextSink& sink) {
    const XmlDoc doc = package.part(name);
    if (!doc) return;
    write_text(root_of(doc), word_rules(), package.options().max_xml_depth, sink);
    sink.line();
}

// Headers, footers and notes in the order of the document's relationships by kind, each
// kind's parts sorted by name (header1, header2, ...).
std::vector<std::string> after_body_parts(OoxmlPackage& package, const std::string& main) {
    const auto rels = package.relationships(main);
    std::vector<std::string> out;
    for (const char* kind : {"header", "footer", "footnotes", "endnotes", "comments"}) {
        std::vector<std::string> names;
        for (const auto& [id, target] : rels) {
            const std::string file = target.substr(target.rfind('/') + 1);
            if (file.starts_with(kind)) names.push_back(target);
        }
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        out.insert(out.end(), names.begin(), names.end());
    }
    return out;
}

} // namespace

std::string docx_text(OoxmlPackage& package) {
    const std::string main = main_part(package);
    TextSink sink;
    write_part(package, main, sink);
    for (const std::string& part : after_body_parts(package, main)) write_part(package, part, sink);
    return std::move(sink).take();
}

} // namespace extractors

// WordprocessingML (DOCX, DOCM): the body, then headers, footers, footnotes, endnotes and
// comments, each paragraph on its line, table cells tab-separated.
#include "extractors/ooxml_package.hpp"
#include "extractors/xml_text.hpp"

#include <algorithm>

namespace extractors {
namespace {

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
    const std::string main = package.main_part("word/document.xml");
    TextSink sink;
    package.write_part(main, ooxml_rules(), sink);
    for (const std::string& part : after_body_parts(package, main)) package.write_part(part, ooxml_rules(), sink);
    return std::move(sink).take();
}

} // namespace extractors

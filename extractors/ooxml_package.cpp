#include "extractors/ooxml_package.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace extractors {
namespace {

std::string percent_decoded(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) != 0 &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2])) != 0) {
            out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            out += s[i];
        }
    }
    return out;
}

// "word/_rels/document.xml.rels" for "word/document.xml".
std::string rels_name(const std::string& part) {
    const std::size_t slash = part.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : part.substr(0, slash + 1);
    const std::string file = slash == std::string::npos ? part : part.substr(slash + 1);
    return dir + "_rels/" + file + ".rels";
}

} // namespace

std::string resolve_part(const std::string& base, const std::string& target) {
    std::string path = percent_decoded(target);
    if (const std::size_t hash = path.find('#'); hash != std::string::npos) path.resize(hash);
    if (!path.empty() && path[0] == '/') {
        path.erase(0, 1);
    } else {
        const std::size_t slash = base.rfind('/');
        path = (slash == std::string::npos ? "" : base.substr(0, slash + 1)) + path;
    }
    std::vector<std::string> segments;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string seg = path.substr(start, end - start);
        if (seg == "..") {
            if (!segments.empty()) segments.pop_back();
        } else if (!seg.empty() && seg != ".") {
            segments.push_back(seg);
        }
        start = end + 1;
    }
    std::string out;
    for (const auto& seg : segments) out += (out.empty() ? "" : "/") + seg;
    return out;
}

XmlDoc OoxmlPackage::part(const std::string& name) {
    const auto bytes = m_zip.read(name);
    if (!bytes) return nullptr;
    return parse_xml(*bytes, name, m_options);
}

std::map<std::string, std::string> OoxmlPackage::relationships(const std::string& name) {
    std::map<std::string, std::string> out;
    const XmlDoc doc = part(rels_name(name));
    for (const xmlNode* rel : children(root_of(doc), "Relationship")) {
        if (attribute(rel, "TargetMode") == "External") continue;
        out[attribute(rel, "Id")] = resolve_part(name, attribute(rel, "Target"));
    }
    return out;
}

std::string OoxmlPackage::related(const std::string& name, std::string_view type_suffix) {
    const XmlDoc doc = part(rels_name(name));
    for (const xmlNode* rel : children(root_of(doc), "Relationship")) {
        if (attribute(rel, "TargetMode") == "External") continue;
        if (attribute(rel, "Type").ends_with(type_suffix)) return resolve_part(name, attribute(rel, "Target"));
    }
    return {};
}

} // namespace extractors

namespace extractors {

const TextRules& ooxml_rules() {
    static const TextRules rules{
        .blocks = {"p"},
        .rows = {"tr"},
        .cells = {"tc"},
        .skip = {"pPr", "rPr", "tblPr", "tcPr", "trPr", "sectPr", "instrText", "delText", "del", "Fallback",
                 "endParaRPr", "tabLst", "fld", "nvSpPr", "nvGrpSpPr"},
        .tabs = {"tab", "ptab"},
        .breaks = {"br", "cr"},
        .spaces = {},
        .text_in = {"t"}, // white space between elements is layout, not text
    };
    return rules;
}

std::string OoxmlPackage::main_part(const std::string& fallback) {
    const std::string found = related("", "/officeDocument");
    return found.empty() ? fallback : found;
}

void OoxmlPackage::write_part(const std::string& name, const TextRules& rules, TextSink& sink) {
    const XmlDoc doc = part(name);
    if (!doc) return;
    write_text(root_of(doc), rules, m_options.max_xml_depth, sink);
    sink.line();
}

} // namespace extractors

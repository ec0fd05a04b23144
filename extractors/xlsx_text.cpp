// SpreadsheetML (XLSX, XLSM): sheet by sheet in the workbook's order, the sheet's name on
// the first line, then its rows with cells tab-separated (empty columns kept as tabs),
// shared strings resolved and cached values rather than formulas; a form feed between
// sheets.
#include "extractors/ooxml_package.hpp"
#include "extractors/xml_text.hpp"

#include <algorithm>

namespace extractors {
namespace {

constexpr int k_max_gap = 256; // empty columns written as tabs before a cell, at most

// The text of one <si> or <is>: its runs' <t>, phonetic guides (<rPh>) left out.
std::string rich_text(const xmlNode* node, int max_depth) {
    std::string out;
    for (const xmlNode* c : children(node)) {
        const std::string_view name = local_name(c);
        if (name == "t") out += plain_content(c, 1);
        if (name == "r") {
            for (const xmlNode* t : children(c, "t")) out += plain_content(t, 1);
        }
    }
    return out;
}

std::vector<std::string> shared_strings(OoxmlPackage& package, const std::string& workbook) {
    std::string name = package.related(workbook, "/sharedStrings");
    if (name.empty()) name = "xl/sharedStrings.xml";
    const XmlDoc doc = package.part(name);
    std::vector<std::string> out;
    for (const xmlNode* si : children(root_of(doc), "si"))
        out.push_back(rich_text(si, package.options().max_xml_depth));
    return out;
}

// Column of a cell reference ("C7" -> 2), or -1.
int column_of(const std::string& ref) {
    int col = 0;
    std::size_t i = 0;
    for (; i < ref.size() && ref[i] >= 'A' && ref[i] <= 'Z' && i < 4; ++i) col = col * 26 + (ref[i] - 'A' + 1);
    return i == 0 ? -1 : col - 1;
}

std::string cell_value(const xmlNode* c, const std::vector<std::string>& strings) {
    const std::string type = attribute(c, "t");
    if (type == "inlineStr") {
        for (const xmlNode* is : children(c, "is")) return rich_text(is, 4);
        return {};
    }
    const auto v = children(c, "v");
    if (v.empty()) return {};
    const std::string value = plain_content(v.front(), 1);
    if (type == "s") {
        const std::size_t index = std::strtoul(value.c_str(), nullptr, 10);
        return index < strings.size() ? strings[index] : std::string();
    }
    if (type == "b") return value == "1" ? "TRUE" : "FALSE";
    return value;
}

void write_sheet(const xmlNode* root, const std::vector<std::string>& strings, TextSink& sink) {
    const xmlNode* data = find_descendant(root, "sheetData", 1);
    for (const xmlNode* row : children(data, "row")) {
        int next = 0;
        for (const xmlNode* c : children(row, "c")) {
            const int col = column_of(attribute(c, "r"));
            for (int gap = 0; col > next && gap < k_max_gap; ++gap, ++next) sink.tab();
            next = std::max(next, col) + 1;
            std::string value = cell_value(c, strings);
            std::replace_if(
                value.begin(), value.end(), [](char ch) { return ch == '\n' || ch == '\t'; }, ' ');
            sink.text(value, false);
            sink.end_cell();
        }
        sink.end_row();
    }
}

} // namespace

std::string xlsx_text(OoxmlPackage& package) {
    const std::string workbook = package.main_part("xl/workbook.xml");
    const XmlDoc doc = package.part(workbook);
    const auto rels = package.relationships(workbook);
    const std::vector<std::string> strings = shared_strings(package, workbook);
    TextSink sink;
    bool first = true;
    for (const xmlNode* sheet : children(find_descendant(root_of(doc), "sheets", 1), "sheet")) {
        const auto target = rels.find(namespaced_attribute(sheet, "id"));
        if (target == rels.end()) continue;
        if (!first) sink.page();
        first = false;
        sink.text(attribute(sheet, "name"), false);
        sink.line();
        const XmlDoc part = package.part(target->second);
        if (part) write_sheet(root_of(part), strings, sink);
    }
    return std::move(sink).take();
}

} // namespace extractors

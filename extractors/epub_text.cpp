#include "extractors/epub_text.hpp"

#include "extractors/document_error.hpp"
#include "extractors/html_text.hpp"
#include "extractors/ooxml_package.hpp"
#include "extractors/xml_reader.hpp"
#include "extractors/xml_text.hpp"

#include <map>

namespace extractors {
namespace {

struct Package {
    std::string opf; // the package document's part name
    XmlDoc doc;
    std::map<std::string, const xmlNode*> items; // manifest items by id
};

Package open_package(ZipArchive& zip, const core::Options& options) {
    const auto container = zip.read("META-INF/container.xml");
    if (!container) throw DocumentError(core::ErrorCode::corrupt_file, "The EPUB has no META-INF/container.xml.");
    const XmlDoc doc = parse_xml(*container, "META-INF/container.xml", options);
    const xmlNode* rootfile = find_descendant(root_of(doc), "rootfile", 3);
    Package p;
    p.opf = rootfile != nullptr ? resolve_part("", attribute(rootfile, "full-path")) : std::string();
    const auto opf = p.opf.empty() ? std::nullopt : zip.read(p.opf);
    if (!opf) throw DocumentError(core::ErrorCode::corrupt_file, "The EPUB has no package document.");
    p.doc = parse_xml(*opf, p.opf, options);
    for (const xmlNode* item : children(find_descendant(root_of(p.doc), "manifest", 1), "item")) {
        p.items[attribute(item, "id")] = item;
    }
    return p;
}

} // namespace

std::string epub_text(ZipArchive& zip, const core::Options& options) {
    const Package p = open_package(zip, options);
    TextSink sink;
    bool first = true;
    for (const xmlNode* ref : children(find_descendant(root_of(p.doc), "spine", 1), "itemref")) {
        const auto item = p.items.find(attribute(ref, "idref"));
        if (item == p.items.end()) continue;
        const auto chapter = zip.read(resolve_part(p.opf, attribute(item->second, "href")));
        if (!chapter) continue;
        const std::string text = html_visible_text(*chapter, options);
        if (text.empty()) continue;
        if (!first) sink.page();
        first = false;
        sink.text(text, false);
    }
    return std::move(sink).take();
}

std::optional<std::string> epub_cover(ZipArchive& zip, const core::Options& options) {
    const Package p = open_package(zip, options);
    std::string href;
    for (const auto& [id, item] : p.items) {
        if (attribute(item, "properties").find("cover-image") != std::string::npos) href = attribute(item, "href");
    }
    if (href.empty()) {
        for (const xmlNode* meta : children(find_descendant(root_of(p.doc), "metadata", 1), "meta")) {
            if (attribute(meta, "name") != "cover") continue;
            const auto item = p.items.find(attribute(meta, "content"));
            if (item != p.items.end()) href = attribute(item->second, "href");
        }
    }
    if (href.empty()) return std::nullopt;
    return zip.read(resolve_part(p.opf, href));
}

} // namespace extractors

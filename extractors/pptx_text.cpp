// PresentationML (PPTX, PPTM): slide by slide in the presentation's order, each slide's
// text (its title first when the title placeholder comes first, as PowerPoint writes it),
// then its notes; a form feed between slides.
#include "extractors/ooxml_package.hpp"
#include "extractors/xml_text.hpp"

namespace extractors {
namespace {

const TextRules& drawing_rules() {
    static const TextRules rules{
        .blocks = {"p"},
        .rows = {"tr"},
        .cells = {"tc"},
        // Properties (tab stops), slide-number and date fields, the fallback copy of
        // alternate content.
        .skip = {"pPr", "rPr", "endParaRPr", "tabLst", "fld", "Fallback", "nvSpPr", "nvGrpSpPr"},
        .tabs = {"tab"},
        .breaks = {"br"},
        .spaces = {},
    };
    return rules;
}

std::string presentation_part(OoxmlPackage& package) {
    const std::string found = package.related("", "/officeDocument");
    return found.empty() ? "ppt/presentation.xml" : found;
}

void write_slide_part(OoxmlPackage& package, const std::string& name, TextSink& sink) {
    const XmlDoc doc = package.part(name);
    if (!doc) return;
    write_text(root_of(doc), drawing_rules(), package.options().max_xml_depth, sink);
    sink.line();
}

} // namespace

std::string pptx_text(OoxmlPackage& package) {
    const std::string presentation = presentation_part(package);
    const XmlDoc doc = package.part(presentation);
    const auto rels = package.relationships(presentation);
    const xmlNode* list = find_descendant(root_of(doc), "sldIdLst", 2);
    TextSink sink;
    bool first = true;
    for (const xmlNode* slide : children(list, "sldId")) {
        const auto target = rels.find(namespaced_attribute(slide, "id"));
        if (target == rels.end()) continue;
        if (!first) sink.page();
        first = false;
        write_slide_part(package, target->second, sink);
        const std::string notes = package.related(target->second, "/notesSlide");
        if (!notes.empty()) write_slide_part(package, notes, sink);
    }
    return std::move(sink).take();
}

} // namespace extractors

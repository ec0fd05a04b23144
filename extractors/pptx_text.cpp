// PresentationML (PPTX, PPTM): slide by slide in the presentation's order, each slide's
// text (its title first when the title placeholder comes first, as PowerPoint writes it),
// then its notes; a form feed between slides.
#include "extractors/ooxml_package.hpp"
#include "extractors/xml_text.hpp"

namespace extractors {

std::string pptx_text(OoxmlPackage& package) {
    const std::string presentation = package.main_part("ppt/presentation.xml");
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
        package.write_part(target->second, ooxml_rules(), sink);
        const std::string notes = package.related(target->second, "/notesSlide");
        if (!notes.empty()) package.write_part(notes, ooxml_rules(), sink);
    }
    return std::move(sink).take();
}

} // namespace extractors

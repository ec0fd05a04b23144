#include "extractors/odf_text.hpp"

#include "extractors/document_error.hpp"
#include "extractors/xml_reader.hpp"
#include "extractors/xml_text.hpp"

namespace extractors {
namespace {

const TextRules& odf_rules() {
    static const TextRules rules{
        .blocks = {"p", "h", "list-item", "frame"},
        .rows = {"table-row"},
        .cells = {"table-cell"},
        // Change tracking (deleted text), annotations' metadata, declarations, forms.
        // Notes are written after the body (write_notes).
        .skip = {"tracked-changes", "sequence-decls", "variable-decls", "user-field-decls", "forms", "creator", "date",
                 "note", "table-columns", "table-column", "page-number", "page-count"},
        .tabs = {"tab"},
        .breaks = {"line-break"},
        .spaces = {"s"},
        .text_in = {},
        // ODF collapses white space in paragraphs (extra spaces are <text:s>).
        .collapse_white_space = true,
    };
    return rules;
}

void check_not_encrypted(ZipArchive& zip, const core::Options& options) {
    const auto manifest = zip.read("META-INF/manifest.xml");
    if (!manifest) return;
    const XmlDoc doc = parse_xml(*manifest, "META-INF/manifest.xml", options);
    if (find_descendant(root_of(doc), "encryption-data", 4) != nullptr) {
        throw DocumentError(core::ErrorCode::encrypted_document, "The document is password-protected.");
    }
}

// Sheets (table:table directly in office:spreadsheet) and pages (draw:page in
// office:presentation) are sections; a text document is one section.
void write_body(const xmlNode* body, const core::Options& options, TextSink& sink) {
    for (const xmlNode* kind : children(body)) {
        const std::string_view name = local_name(kind);
        if (name != "spreadsheet" && name != "presentation") {
            write_text(kind, odf_rules(), options.max_xml_depth, sink);
            continue;
        }
        bool first = true;
        for (const xmlNode* section : children(kind)) {
            const std::string_view part = local_name(section);
            if (part != "table" && part != "page") continue;
            if (!first) sink.page();
            first = false;
            if (part == "table") {
                sink.text(attribute(section, "name"), false);
                sink.line();
            }
            write_text(section, odf_rules(), options.max_xml_depth, sink);
            sink.line();
        }
    }
}

// Footnotes and endnotes (<text:note-body>), in document order.
void write_notes(const xmlNode* node, int depth, const core::Options& options, TextSink& sink) {
    if (depth > options.max_xml_depth) return;
    for (const xmlNode* c : children(node)) {
        if (local_name(c) == "note-body") {
            write_text(c, odf_rules(), options.max_xml_depth, sink);
            sink.line();
        } else {
            write_notes(c, depth + 1, options, sink);
        }
    }
}

// The master pages' headers and footers of styles.xml, after the body.
void write_headers(ZipArchive& zip, const core::Options& options, TextSink& sink) {
    const auto styles = zip.read("styles.xml");
    if (!styles) return;
    const XmlDoc doc = parse_xml(*styles, "styles.xml", options);
    const xmlNode* masters = find_descendant(root_of(doc), "master-styles", 1);
    for (const xmlNode* page : children(masters, "master-page")) {
        for (const xmlNode* part : children(page)) {
            const std::string_view name = local_name(part);
            if (name == "header" || name == "footer") write_text(part, odf_rules(), options.max_xml_depth, sink);
        }
    }
}

} // namespace

std::string odf_text(ZipArchive& zip, const core::Options& options) {
    check_not_encrypted(zip, options);
    const auto content = zip.read("content.xml");
    if (!content) {
        throw DocumentError(core::ErrorCode::corrupt_file, "The OpenDocument file has no content.xml part.");
    }
    const XmlDoc doc = parse_xml(*content, "content.xml", options);
    TextSink sink;
    const xmlNode* body = find_descendant(root_of(doc), "body", 1);
    write_body(body, options, sink);
    sink.line();
    write_notes(body, 0, options, sink);
    write_headers(zip, options, sink);
    return std::move(sink).take();
}

} // namespace extractors

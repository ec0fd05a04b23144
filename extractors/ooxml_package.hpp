#pragma once

#include "core/options.hpp"
#include "extractors/xml_reader.hpp"
#include "extractors/xml_text.hpp"
#include "extractors/zip_archive.hpp"

#include <map>
#include <string>

namespace extractors {

/// An Office Open XML package (or any zip of XML parts): parts parsed safely, and the
/// relationships of a part resolved to part names.
class OoxmlPackage {
public:
    OoxmlPackage(ZipArchive& zip, const core::Options& options) : m_zip(zip), m_options(options) {}

    /// The part parsed as XML, or nullptr when the package has no such part.
    XmlDoc part(const std::string& name);
    /// The relationship targets of part `name` by relationship id, as part names
    /// ("ppt/slides/slide1.xml"); external targets left out.
    std::map<std::string, std::string> relationships(const std::string& name);
    /// The target of the first relationship of `name` whose type ends with `type_suffix`.
    std::string related(const std::string& name, std::string_view type_suffix);
    /// The package's main part (the officeDocument relationship of _rels/.rels), or
    /// `fallback` ("word/document.xml") when the package does not say.
    std::string main_part(const std::string& fallback);
    /// Writes the text of part `name` by `rules`, then ends the line; nothing when absent.
    void write_part(const std::string& name, const TextRules& rules, TextSink& sink);
    ZipArchive& zip() { return m_zip; }
    const core::Options& options() const { return m_options; }

private:
    ZipArchive& m_zip;
    const core::Options& m_options;
};

/// `target` relative to the folder of part `base` ("word/document.xml" + "media/a.png" ->
/// "word/media/a.png"; "/x" is from the root), with "." and ".." resolved and %XX decoded.
std::string resolve_part(const std::string& base, const std::string& target);

/// How WordprocessingML and DrawingML (slides) lay out text: <w:p>/<a:p> paragraphs,
/// <w:tr>/<a:tr> rows of <w:tc>/<a:tc> cells; properties (their <w:tab> are tab stops),
/// field codes and fields, deleted text and alternate content's fallback copy skipped.
const TextRules& ooxml_rules();

/// The three OOXML readers: text in reading order (see SPEC "Types").
std::string docx_text(OoxmlPackage& package);
std::string pptx_text(OoxmlPackage& package);
std::string xlsx_text(OoxmlPackage& package);

} // namespace extractors

#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <libxml/tree.h>

namespace extractors {

/// How a markup vocabulary (WordprocessingML, DrawingML, OpenDocument, HTML) lays out its
/// text, by elements' local names. One walker reads them all.
struct TextRules {
    std::vector<std::string_view> blocks;  // end with a new line (paragraphs, headings, list items)
    std::vector<std::string_view> rows;    // table rows: a new line, cells tab-separated
    std::vector<std::string_view> cells;   // table cells: followed by a tab
    std::vector<std::string_view> skip;    // whole subtree ignored (properties, scripts, deleted text)
    std::vector<std::string_view> tabs;    // an element that is a tab character
    std::vector<std::string_view> breaks;  // an element that is a line break
    std::vector<std::string_view> spaces;  // an element that is spaces (ODF <text:s text:c="N"/>)
    std::vector<std::string_view> text_in; // when set, only text directly inside these counts (OOXML <w:t>)
    bool collapse_white_space = false;     // HTML, ODF: runs of white space are one space
};

/// Text lines as a walker writes them: no blank lines, no trailing spaces, cells
/// tab-separated. Also used to join sections (form feeds).
class TextSink {
public:
    void text(std::string_view s, bool collapse);
    void space();
    void tab();
    void line();
    /// A form feed between sections (slides, sheets, chapters); none before the first.
    void page();
    void end_cell();
    void end_row();
    bool in_cell() const { return m_cell_depth > 0; }
    void enter_cell() { ++m_cell_depth; }
    void leave_cell() { --m_cell_depth; }
    std::string take() &&;

private:
    void trim_spaces();
    std::string m_out;
    int m_cell_depth = 0;
};

/// Writes the text under `node` to `sink` by `rules`; elements deeper than `max_depth`
/// below `node` are not read.
void write_text(const xmlNode* node, const TextRules& rules, int max_depth, TextSink& sink);

} // namespace extractors

#include "extractors/xml_text.hpp"

#include "extractors/xml_reader.hpp"

#include <algorithm>
#include <cstdlib>

namespace extractors {
namespace {

bool listed(const std::vector<std::string_view>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

// `levels`: how many more levels of elements below this one are read.
void write_children(const xmlNode* node, const TextRules& rules, int levels, TextSink& sink);

void write_element(const xmlNode* e, const TextRules& rules, int levels, TextSink& sink) {
    const std::string_view name = local_name(e);
    if (listed(rules.skip, name)) return;
    if (listed(rules.tabs, name)) return sink.tab();
    if (listed(rules.breaks, name)) return sink.line();
    if (listed(rules.spaces, name)) {
        const int n = std::clamp(std::atoi(attribute(e, "c").c_str()), 1, 64);
        sink.text(std::string(static_cast<std::size_t>(n), ' '), false);
        return;
    }
    const bool cell = listed(rules.cells, name);
    if (cell) sink.enter_cell();
    write_children(e, rules, levels - 1, sink);
    if (cell) {
        sink.leave_cell();
        sink.end_cell();
    } else if (listed(rules.rows, name)) {
        sink.end_row();
    } else if (listed(rules.blocks, name)) {
        if (sink.in_cell()) {
            sink.space();
        } else {
            sink.line();
        }
    }
}

void write_children(const xmlNode* node, const TextRules& rules, int levels, TextSink& sink) {
    if (levels < 0) return;
    for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
        if (c->type == XML_ELEMENT_NODE) {
            write_element(c, rules, levels, sink);
        } else if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) && c->content != nullptr &&
                   (rules.text_in.empty() || listed(rules.text_in, local_name(node)))) {
            sink.text(reinterpret_cast<const char*>(c->content), rules.collapse_white_space);
        }
    }
}

} // namespace

void TextSink::text(std::string_view s, bool collapse) {
    if (!collapse) {
        // No line starts with spaces (a run's leading space after a note reference).
        if (m_out.empty() || m_out.back() == '\n' || m_out.back() == '\f') {
            while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        }
        m_out += s;
        return;
    }
    for (const char c : s) {
        if (!is_space(c)) {
            m_out += c;
        } else if (!m_out.empty() && !is_space(m_out.back())) {
            m_out += ' ';
        }
    }
}

void TextSink::space() {
    if (!m_out.empty() && m_out.back() != ' ' && m_out.back() != '\n' && m_out.back() != '\t') m_out += ' ';
}

void TextSink::tab() {
    m_out += '\t';
}

void TextSink::trim_spaces() {
    while (!m_out.empty() && m_out.back() == ' ') m_out.pop_back();
}

void TextSink::line() {
    trim_spaces();
    if (!m_out.empty() && m_out.back() != '\n' && m_out.back() != '\f') m_out += '\n';
}

void TextSink::page() {
    line();
    while (!m_out.empty() && m_out.back() == '\n') m_out.pop_back();
    if (!m_out.empty()) m_out += '\f';
}

void TextSink::end_cell() {
    trim_spaces();
    m_out += '\t';
}

void TextSink::end_row() {
    while (!m_out.empty() && (m_out.back() == '\t' || m_out.back() == ' ')) m_out.pop_back();
    line();
}

std::string TextSink::take() && {
    line();
    while (!m_out.empty() && (m_out.back() == '\n' || m_out.back() == '\f')) m_out.pop_back();
    return std::move(m_out);
}

void write_text(const xmlNode* node, const TextRules& rules, int max_depth, TextSink& sink) {
    if (node != nullptr) write_children(node, rules, max_depth, sink);
}

} // namespace extractors

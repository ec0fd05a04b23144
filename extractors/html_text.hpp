#pragma once

#include "extractors/step.hpp"

#include <span>
#include <string>
#include <string_view>

namespace extractors {

/// The visible text of HTML or XHTML through libxml2's HTML parser: no tags, no script,
/// style or head contents, entities decoded, white space collapsed, block elements on their
/// own lines, table cells tab-separated. `encoding` overrides the document's own
/// declaration (e-mail bodies already converted to UTF-8). Never throws for bad markup.
std::string html_visible_text(std::string_view html, const core::Options& options, const char* encoding = nullptr);

/// The HTML extractor: html_visible_text, method `markup`. Never fails.
TextResult extract_html_text(std::span<const unsigned char> bytes, const TextOptions& options);

} // namespace extractors

#pragma once

#include "extractors/step.hpp"

#include <span>

namespace extractors {

/// The text of an RTF document: \'hh escapes decoded from the document's code page
/// (\ansicpgN, Windows-1252 by default) and \uN characters, both to UTF-8; \par and \line
/// end lines, \tab and \cell are tabs, \row ends a table row; control words, font, colour
/// and style tables, the info group, pictures, objects and every \* destination left out.
/// Method `document`. A file that is not RTF is corrupt_file. Thread-safe.
TextResult extract_rtf_text(std::span<const unsigned char> bytes, const TextOptions& options);

} // namespace extractors

#pragma once

#include "extractors/step.hpp"

#include <span>

namespace extractors {

/// Text of a text file (`text/*`, JSON, HTML and XML as raw text): UTF-8, UTF-16 and
/// UTF-32 with a byte-order mark, invalid sequences replaced, controls removed.
/// Method `plain`. Never fails. Thread-safe.
TextResult extract_plain_text(std::span<const unsigned char> bytes);

} // namespace extractors

#pragma once

#include <string>

namespace extractors {

/// What the pipeline does with a detected type.
enum class Kind { pdf, image, text, other };

/// MIME type of the file behind `fd` from its bytes, with libmagic's default flags (so it
/// matches `file --mime-type`). One libmagic cookie per thread, loaded on first use.
/// Returns "application/octet-stream" when libmagic cannot tell. Thread-safe.
std::string detect_content_type(int fd);

/// MIME type of a buffer (same rules as detect_content_type).
std::string detect_content_type_buffer(const void* data, std::size_t size);

/// The pipeline's kind of a detected MIME type.
Kind kind_of(const std::string& mime);

} // namespace extractors

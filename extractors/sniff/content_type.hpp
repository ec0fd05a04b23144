#pragma once

#include <string>
#include <string_view>

namespace extractors {

/// What the pipeline does with a detected type (the spec's "Types"): PDFs, images, text
/// (including XML, SVG and JSON), and everything else.
enum class Kind { pdf, image, text, document, other };

/// "pdf", "image", "text", "document" or "other": the kind's name in metrics and logs.
std::string_view to_string(Kind kind);

/// MIME type of the file behind `fd` from its bytes, with libmagic's default flags (so it
/// matches `file --mime-type`). One libmagic cookie per thread, loaded on first use.
/// Returns "application/octet-stream" when libmagic cannot tell. Thread-safe.
std::string detect_content_type(int fd);

/// MIME type of a buffer (same rules as detect_content_type).
std::string detect_content_type_buffer(const void* data, std::size_t size);

/// The pipeline's kind of a detected MIME type: the one classifier that the worker's job
/// runner and the extractor registry both follow. XML (`text/xml`, `application/xml`, any
/// `+xml` type such as `image/svg+xml`) and JSON are text; other `image/*` types are images.
Kind kind_of(std::string_view mime);

} // namespace extractors

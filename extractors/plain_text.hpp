#pragma once

#include "extractors/step.hpp"

#include <cstdint>
#include <span>

namespace extractors {

/// Text of a text file (`text/*`, JSON, HTML and XML as raw text): UTF-8, UTF-16 and
/// UTF-32 with a byte-order mark, invalid sequences replaced, controls removed.
/// Method `plain`. Never fails. Thread-safe.
TextResult extract_plain_text(std::span<const unsigned char> bytes);

/// The same text read from the descriptor `fd` (`size` bytes from offset 0) in pieces, with
/// memory bounded whatever the size: a text longer than `options.max_text_bytes` goes to a
/// spool as it is decoded (TextSink). Fails with `timeout` at `options.deadline` (keeping
/// the text read so far) and `corrupt_file` when the file cannot be read. Throws
/// std::system_error when the spool cannot be written. Thread-safe.
TextResult extract_plain_text_file(int fd, std::uint64_t size, const TextOptions& options);

} // namespace extractors

#pragma once

#include "extractors/step.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace extractors {

/// Collects an extractor's text with bounded memory: the first bytes stay in memory, and
/// once the text is longer than `inline_bytes` the whole of it goes to an unlinked spool file
/// (core::open_spool_file, in TMPDIR: the helper's scratch folder) as it is appended.
/// Not thread-safe.
class TextSink {
public:
    explicit TextSink(std::size_t inline_bytes) : m_inline(inline_bytes) {}

    /// Appends valid UTF-8. Throws std::system_error when the spool cannot be made or written.
    void append(std::string_view utf8);

    /// Bytes appended so far.
    std::uint64_t size() const { return m_size; }

    /// Hands the text to `result`: the whole text in `text` when it fits `inline_bytes`, else
    /// the spool in `spill` (and its length in `spill_bytes`) with `text` its longest prefix
    /// of at most `inline_bytes` that does not cut a character.
    void finish_into(TextResult& result) &&;

private:
    void spill(std::string_view bytes, std::uint64_t offset);

    std::size_t m_inline;
    std::uint64_t m_size = 0;
    std::string m_head; // the first bytes (up to m_inline + 4), or everything while it fits
    std::shared_ptr<core::Fd> m_file;
};

/// `result` with a text longer than `inline_bytes` moved to a spool the way TextSink does it,
/// so that no extractor's text travels whole between processes. Throws std::system_error.
void spill_long_text(TextResult& result, std::size_t inline_bytes);

} // namespace extractors

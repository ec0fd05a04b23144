#include "extractors/text_sink.hpp"

#include "core/spool.hpp"
#include "extractors/text_clean.hpp"

#include <cerrno>
#include <system_error>

namespace extractors {

void TextSink::spill(std::string_view bytes, std::uint64_t offset) {
    if (!m_file) {
        m_file = std::make_shared<core::Fd>(core::open_spool_file());
        if (!*m_file) throw std::system_error(errno, std::generic_category(), "cannot make a spool for the text");
    }
    if (!core::pwrite_all(m_file->get(), bytes.data(), bytes.size(), offset)) {
        throw std::system_error(errno, std::generic_category(), "cannot write the text's spool");
    }
}

void TextSink::append(std::string_view utf8) {
    if (utf8.empty()) return;
    const std::uint64_t before = m_size;
    const std::size_t keep = m_inline + 4; // enough to cut the inline prefix at a character
    if (m_head.size() < keep) m_head.append(utf8.substr(0, keep - m_head.size()));
    m_size += utf8.size();
    if (!m_file && m_size <= m_inline) return; // the head holds all of it
    // Until the text outgrew the inline size, the head held all of it: that goes first.
    if (!m_file && before > 0) spill(std::string_view(m_head).substr(0, before), 0);
    spill(utf8, before);
}

void TextSink::finish_into(TextResult& result) && {
    if (!m_file) {
        result.text = std::move(m_head);
        result.spill.reset();
        result.spill_bytes = 0;
        return;
    }
    m_head.resize(utf8_prefix_length(m_head, m_inline));
    result.text = std::move(m_head);
    result.spill = std::move(m_file);
    result.spill_bytes = m_size;
}

void spill_long_text(TextResult& result, std::size_t inline_bytes) {
    if (result.spill || result.text.size() <= inline_bytes) return;
    TextSink sink(inline_bytes);
    sink.append(result.text);
    std::string().swap(result.text);
    std::move(sink).finish_into(result);
}

} // namespace extractors

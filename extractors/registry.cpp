#include "extractors/registry.hpp"

#include "extractors/image_text.hpp"
#include "extractors/pdf_text.hpp"
#include "extractors/plain_text.hpp"
#include "extractors/sniff/content_type.hpp"

#include <mutex>
#include <stdexcept>
#include <utility>

namespace extractors {

namespace {

// The built-in rows. Their keys come from kind_of, so that the worker's job runner (which
// classifies with kind_of alone) and the helper agree on what is a PDF, an image or text.
void add_builtin_rows(Registry& r) {
    r.add(Extractor{
        .name = "pdf_text",
        .accepts = [](const std::string& mime) { return kind_of(mime) == Kind::pdf; },
        .extract = [](std::span<const unsigned char> bytes, const std::string&,
                      const TextOptions& options) { return extract_pdf_text(bytes, options); },
        .enabled = {},
    });
    r.add(Extractor{
        .name = "image_ocr",
        .accepts = [](const std::string& mime) { return kind_of(mime) == Kind::image && is_ocr_image(mime); },
        .extract = extract_image_text,
        .enabled = [](const TextOptions& options) { return options.ocr_mode != OcrMode::off; },
    });
    r.add(Extractor{
        .name = "plain_text",
        .accepts = [](const std::string& mime) { return kind_of(mime) == Kind::text; },
        .extract = [](std::span<const unsigned char> bytes, const std::string&,
                      const TextOptions&) { return extract_plain_text(bytes); },
        .enabled = {},
    });
}

} // namespace

void Registry::add(Extractor row) {
    if (!row.accepts || !row.extract) {
        throw std::invalid_argument("extractor row '" + row.name + "' needs accepts and extract");
    }
    const std::unique_lock lock(m_mutex);
    m_rows.push_back(std::move(row));
}

const Extractor* Registry::find(const std::string& mime) const {
    const std::shared_lock lock(m_mutex);
    for (const Extractor& row : m_rows) {
        if (row.accepts(mime)) return &row;
    }
    return nullptr;
}

Registry& registry() {
    static Registry instance;
    static std::once_flag builtins;
    std::call_once(builtins, [] { add_builtin_rows(instance); });
    return instance;
}

const Extractor* find_extractor(const std::string& mime) {
    return registry().find(mime);
}

} // namespace extractors

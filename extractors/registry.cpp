#include "extractors/registry.hpp"

#include "extractors/document_text.hpp"
#include "extractors/document_type.hpp"
#include "extractors/email_text.hpp"
#include "extractors/html_text.hpp"
#include "extractors/image_text.hpp"
#include "extractors/pdf_text.hpp"
#include "extractors/plain_text.hpp"
#include "extractors/rtf_text.hpp"
#include "extractors/sniff/content_type.hpp"

#include <mutex>
#include <stdexcept>
#include <utility>

namespace extractors {

namespace {

bool is_zip_document(const std::string& mime) {
    return is_ooxml_type(mime) || is_odf_type(mime) || is_epub_type(mime);
}

// Documents (SPEC "Types"): office files and e-books, RTF, e-mail, password-protected
// OOXML, and HTML, which must come before plain text.
void add_document_rows(Registry& r) {
    r.add(Extractor{.name = "document", .accepts = is_zip_document, .extract = extract_document_text, .enabled = {}});
    r.add(Extractor{
        .name = "rtf",
        .accepts = [](const std::string& mime) { return mime == "text/rtf" || mime == "application/rtf"; },
        .extract = [](std::span<const unsigned char> bytes, const std::string&,
                      const TextOptions& options) { return extract_rtf_text(bytes, options); },
        .enabled = {},
    });
    r.add(Extractor{
        .name = "email",
        .accepts = [](const std::string& mime) { return mime == "message/rfc822" || mime == "application/mbox"; },
        .extract =
            [](std::span<const unsigned char> bytes, const std::string& mime, const TextOptions& options) {
                return extract_email_text(bytes, mime == "application/mbox", options);
            },
        .enabled = {},
    });
    r.add(Extractor{
        .name = "encrypted_office",
        .accepts = [](const std::string& mime) { return mime == "application/encrypted"; },
        .extract = [](std::span<const unsigned char>, const std::string&,
                      const TextOptions&) { return encrypted_document_result(); },
        .enabled = {},
    });
    r.add(Extractor{
        .name = "html",
        .accepts = [](const std::string& mime) { return mime == "text/html" || mime == "application/xhtml+xml"; },
        .extract = [](std::span<const unsigned char> bytes, const std::string&,
                      const TextOptions& options) { return extract_html_text(bytes, options); },
        .enabled = {},
    });
}

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
    add_document_rows(r);
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

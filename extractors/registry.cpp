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

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace extractors {

namespace {

bool is_zip_document(const std::string& mime) {
    return is_ooxml_type(mime) || is_odf_type(mime) || is_epub_type(mime);
}

using ReadBytes = TextResult (*)(std::span<const unsigned char>, const TextOptions&);

// A row of the document types `types`, read by `read` (which needs no type).
Extractor row_of(std::string name, std::vector<std::string> types, ReadBytes read) {
    return Extractor{
        .name = std::move(name),
        .accepts = [types = std::move(types)](
                       const std::string& mime) { return std::find(types.begin(), types.end(), mime) != types.end(); },
        .extract = [read](std::span<const unsigned char> bytes, const std::string&,
                          const TextOptions& options) { return read(bytes, options); },
        .enabled = {},
    };
}

TextResult read_message(std::span<const unsigned char> bytes, const TextOptions& options) {
    return extract_email_text(bytes, false, options);
}

TextResult read_mbox(std::span<const unsigned char> bytes, const TextOptions& options) {
    return extract_email_text(bytes, true, options);
}

TextResult read_encrypted(std::span<const unsigned char>, const TextOptions&) {
    return encrypted_document_result();
}

// Documents (SPEC "Types"): office files and e-books, RTF, e-mail, password-protected
// OOXML, and HTML, which must come before plain text.
void add_document_rows(Registry& r) {
    r.add(Extractor{.name = "document", .accepts = is_zip_document, .extract = extract_document_text, .enabled = {}});
    r.add(row_of("rtf", {"text/rtf", "application/rtf"}, extract_rtf_text));
    r.add(row_of("email", {"message/rfc822"}, read_message));
    r.add(row_of("mbox", {"application/mbox"}, read_mbox));
    r.add(row_of("encrypted_office", {"application/encrypted"}, read_encrypted));
    r.add(row_of("html", {"text/html", "application/xhtml+xml"}, extract_html_text));
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
        .extract_file = [](int fd, std::uint64_t size, const std::string&,
                           const TextOptions& options) { return extract_plain_text_file(fd, size, options); },
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

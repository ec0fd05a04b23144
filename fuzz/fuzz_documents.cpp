// Documents: the zip layer and every zip-based reader (OOXML, ODF, EPUB), RTF, HTML and
// e-mail on the same bytes. The contract: no crash, no leak, and every failure is one of the
// document codes.
#include "extractors/document_text.hpp"
#include "extractors/document_type.hpp"
#include "extractors/email_text.hpp"
#include "extractors/html_text.hpp"
#include "extractors/rtf_text.hpp"

#include <cstdint>
#include <cstdlib>

namespace {

void check(const extractors::TextResult& r) {
    if (!r.error) return;
    using core::ErrorCode;
    const ErrorCode c = r.error->code;
    if (c != ErrorCode::corrupt_file && c != ErrorCode::too_large_unpacked && c != ErrorCode::encrypted_document &&
        c != ErrorCode::unsupported_format) {
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const unsigned char> bytes(data, size);
    core::Options options;
    options.max_unpacked_bytes = 64 << 20; // within libFuzzer's RSS limit
    for (const char* mime : {"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                             "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                             "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                             "application/vnd.oasis.opendocument.text", "application/epub+zip"}) {
        check(extractors::extract_document_text(bytes, mime, options));
    }
    (void)extractors::refine_content_type(bytes, "application/zip");
    check(extractors::extract_rtf_text(bytes, options));
    check(extractors::extract_html_text(bytes, options));
    check(extractors::extract_email_text(bytes, false, options));
    check(extractors::extract_email_text(bytes, true, options));
    return 0;
}

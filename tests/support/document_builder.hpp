#pragma once

// Documents made at test time: zips written with libzip from XML strings (DOCX, XLSX, PPTX,
// ODT, ODS, EPUB), and the hostile archives (bombs, encrypted entries, many entries).
#include <string>
#include <vector>

namespace testsupport {

struct ZipEntry {
    std::string name;
    std::string data;
    bool stored = false;    // no compression (ODF's and EPUB's mimetype)
    bool encrypted = false; // AES-256 with the password "secret"
};

/// A zip archive of `entries`, in that order.
std::string make_zip(const std::vector<ZipEntry>& entries);

/// The fixtures and the exact text their extraction must give.
struct DocumentFixture {
    std::string bytes;
    std::string expected_text;
};

DocumentFixture docx_fixture();
DocumentFixture xlsx_fixture();
DocumentFixture pptx_fixture();
DocumentFixture odt_fixture();
DocumentFixture ods_fixture();
DocumentFixture odp_fixture();
DocumentFixture epub_fixture();

/// A DOCX whose body part is `body_xml` (the whole word/document.xml).
std::string docx_with_body(const std::string& body_xml);
/// A DOCX with docProps/thumbnail.png set to `png`.
std::string docx_with_thumbnail(const std::string& png);

} // namespace testsupport

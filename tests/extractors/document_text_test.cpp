// Office documents and e-books made by the test (tests/support/document_builder.*): the
// exact text in reading order, and the archive safety limits.
#include "extractors/document_text.hpp"
#include "extractors/document_type.hpp"
#include "extractors/registry.hpp"
#include "extractors/sniff/content_type.hpp"
#include "tests/support/document_builder.hpp"

#include <chrono>

#include <gtest/gtest.h>

namespace {

using testsupport::DocumentFixture;

std::span<const unsigned char> span_of(const std::string& s) {
    return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

// libmagic's type, refined as the helper does.
std::string type_of(const std::string& bytes) {
    return extractors::refine_content_type(span_of(bytes),
                                           extractors::detect_content_type_buffer(bytes.data(), bytes.size()));
}

// Through the registry, as analyse() runs it.
extractors::TextResult extract(const std::string& bytes, const core::Options& options = {}) {
    const std::string mime = type_of(bytes);
    const extractors::Extractor* row = extractors::find_extractor(mime);
    if (row == nullptr) {
        extractors::TextResult none;
        none.method = "none:" + mime;
        return none;
    }
    return row->extract(span_of(bytes), mime, options);
}

void expect_text(const DocumentFixture& f, const std::string& type) {
    EXPECT_EQ(type_of(f.bytes), type);
    EXPECT_EQ(extractors::kind_of(type), extractors::Kind::document);
    const auto r = extract(f.bytes);
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.method, "document");
    EXPECT_EQ(r.text, f.expected_text);
}

TEST(DocumentText, DocxParagraphsTablesListsThenHeadersAndFooters) {
    expect_text(testsupport::docx_fixture(), "application/vnd.openxmlformats-officedocument.wordprocessingml.document");
}

TEST(DocumentText, XlsxSheetsByNameWithSharedStringsAndValues) {
    expect_text(testsupport::xlsx_fixture(), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
}

TEST(DocumentText, PptxSlidesInPresentationOrderWithFormFeeds) {
    expect_text(testsupport::pptx_fixture(),
                "application/vnd.openxmlformats-officedocument.presentationml.presentation");
}

TEST(DocumentText, OdtHeadingsTabsSpacesListsAndTables) {
    expect_text(testsupport::odt_fixture(), "application/vnd.oasis.opendocument.text");
}

TEST(DocumentText, OdsSheetsByNameWithFormFeeds) {
    expect_text(testsupport::ods_fixture(), "application/vnd.oasis.opendocument.spreadsheet");
}

TEST(DocumentText, OdpPagesWithFormFeeds) {
    expect_text(testsupport::odp_fixture(), "application/vnd.oasis.opendocument.presentation");
}

TEST(DocumentText, MacroEnabledWordIsReadLikeDocx) {
    const std::string body = "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>Macro</w:t></w:r></w:p></w:body>"
                             "</w:document>";
    const std::string docm = testsupport::make_zip(
        {{"[Content_Types].xml", "<Types><Override PartName=\"/word/document.xml\" "
                                 "ContentType=\"application/vnd.ms-word.document.macroEnabled.main+xml\"/></Types>"},
         {"word/document.xml", body}});
    EXPECT_EQ(type_of(docm), "application/vnd.ms-word.document.macroEnabled.12");
    const auto r = extract(docm);
    ASSERT_FALSE(r.error) << r.error->message;
    EXPECT_EQ(r.text, "Macro");
}

TEST(DocumentText, EpubChaptersInSpineOrder) {
    expect_text(testsupport::epub_fixture(), "application/epub+zip");
}

TEST(DocumentSafety, ZipBombEndsTooLargeUnpackedInMilliseconds) {
    // 200 MB of zeros deflate to ~200 KB: a ratio of ~1000 to 1.
    const std::string zeros(200u << 20, '\0');
    const std::string bomb = testsupport::make_zip(
        {{"[Content_Types].xml", "<Types><Override ContentType=\"wordprocessingml.document.main\"/></Types>"},
         {"word/document.xml", zeros}});
    const auto start = std::chrono::steady_clock::now();
    const auto r = extract(bomb);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    ASSERT_TRUE(r.error) << r.method;
    EXPECT_EQ(r.error->code, core::ErrorCode::too_large_unpacked);
    EXPECT_LT(elapsed, std::chrono::milliseconds(250));
}

// Sizes in a zip's headers are the archive's word: one that declares 1 KiB and unpacks to
// 50 MB stops at the read budget, not after the whole part.
TEST(DocumentSafety, PartLyingAboutItsSizeStopsAtTheBudget) {
    std::string z = testsupport::make_zip(
        {{"[Content_Types].xml", "<Types><Override ContentType=\"wordprocessingml.document.main\"/></Types>"},
         {"word/document.xml", std::string(50u << 20, ' ')}});
    auto patch = [&](const char* signature, std::size_t name_offset, std::size_t size_offset) {
        for (std::size_t at = z.find(signature); at != std::string::npos; at = z.find(signature, at + 4)) {
            if (z.compare(at + name_offset, 17, "word/document.xml") != 0) continue;
            z[at + size_offset] = 0;
            z[at + size_offset + 1] = 4; // 1024
            z[at + size_offset + 2] = 0;
            z[at + size_offset + 3] = 0;
        }
    };
    patch("PK\x03\x04", 30, 22); // local header: name at 30, uncompressed size at 22
    patch("PK\x01\x02", 46, 24); // central directory: name at 46, uncompressed size at 24
    core::Options options;
    options.max_unpacked_bytes = 4 << 20;
    const auto start = std::chrono::steady_clock::now();
    const auto r = extractors::extract_document_text(
        span_of(z), "application/vnd.openxmlformats-officedocument.wordprocessingml.document", options);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::too_large_unpacked) << r.error->message;
}

TEST(DocumentSafety, UnpackedTotalOverTheBudgetIsTooLarge) {
    core::Options options;
    options.max_unpacked_bytes = 1000;
    const auto r = extract(testsupport::docx_fixture().bytes, options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::too_large_unpacked);
}

TEST(DocumentSafety, TooManyEntriesIsTooLarge) {
    auto f = testsupport::docx_fixture();
    core::Options options;
    options.max_zip_entries = 3;
    const auto r = extract(f.bytes, options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::too_large_unpacked);
    EXPECT_NE(r.error->message.find("entries"), std::string::npos) << r.error->message;
}

TEST(DocumentSafety, TruncatedZipIsCorrupt) {
    const std::string docx = testsupport::docx_fixture().bytes;
    const std::string truncated = docx.substr(0, docx.size() / 2);
    const auto r = extractors::extract_document_text(
        span_of(truncated), "application/vnd.openxmlformats-officedocument.wordprocessingml.document", {});
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::corrupt_file);
}

const char* k_docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

TEST(DocumentSafety, BillionLaughsIsRefusedNotExpanded) {
    std::string dtd = "<?xml version=\"1.0\"?><!DOCTYPE w:document [<!ENTITY lol \"lol\">";
    for (int i = 1; i < 10; ++i) {
        std::string refs;
        for (int k = 0; k < 10; ++k) refs += "&lol" + (i == 1 ? std::string() : std::to_string(i - 1)) + ";";
        dtd += "<!ENTITY lol" + std::to_string(i) + " \"" + refs + "\">";
    }
    const std::string body = dtd + "]><w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p>"
                                   "</w:body></w:document>";
    const auto start = std::chrono::steady_clock::now();
    const auto r = extractors::extract_document_text(span_of(testsupport::docx_with_body(body)), k_docx, {});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::corrupt_file);
    EXPECT_EQ(r.text.find("lollol"), std::string::npos);
}

TEST(DocumentSafety, ExternalEntityIsNeverRead) {
    const std::string body = "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                             "<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>&x;</w:t></w:r></w:p></w:body>"
                             "</w:document>";
    const auto r = extractors::extract_document_text(span_of(testsupport::docx_with_body(body)), k_docx, {});
    EXPECT_EQ(r.text.find("root:"), std::string::npos);
    ASSERT_TRUE(r.error);
}

TEST(DocumentSafety, DeepNestingIsBounded) {
    std::string open, close;
    for (int i = 0; i < 60; ++i) {
        open += "<w:sdt><w:sdtContent>";
        close += "</w:sdtContent></w:sdt>";
    }
    const std::string body = "<w:document xmlns:w=\"w\"><w:body>" + open + "<w:p><w:r><w:t>deep</w:t></w:r></w:p>" +
                             close + "</w:body></w:document>";
    core::Options options;
    options.max_xml_depth = 100;
    const auto r = extractors::extract_document_text(span_of(testsupport::docx_with_body(body)), k_docx, options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::corrupt_file);
    EXPECT_NE(r.error->message.find("deeper than 100"), std::string::npos) << r.error->message;
    // Past libxml2's own bound (256 without XML_PARSE_HUGE) whatever the option says.
    std::string deep;
    for (int i = 0; i < 5000; ++i) deep += "<w:sdt>";
    const auto r2 = extractors::extract_document_text(
        span_of(testsupport::docx_with_body("<w:document xmlns:w=\"w\">" + deep)), k_docx, {});
    ASSERT_TRUE(r2.error);
    EXPECT_EQ(r2.error->code, core::ErrorCode::corrupt_file);
}

TEST(DocumentSafety, EncryptedZipEntryIsEncryptedDocument) {
    const std::string body = "<w:document xmlns:w=\"w\"><w:body/></w:document>";
    const std::string docx = testsupport::make_zip(
        {{"[Content_Types].xml", "<Types><Override ContentType=\"wordprocessingml.document.main\"/></Types>"},
         {"word/document.xml", body, false, true}});
    const auto r = extract(docx);
    ASSERT_TRUE(r.error) << r.method;
    EXPECT_EQ(r.error->code, core::ErrorCode::encrypted_document);
}

TEST(DocumentSafety, OdfWithEncryptionDataIsEncryptedDocument) {
    const std::string manifest =
        "<manifest:manifest xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\">"
        "<manifest:file-entry manifest:full-path=\"content.xml\"><manifest:encryption-data/></manifest:file-entry>"
        "</manifest:manifest>";
    const std::string odt = testsupport::make_zip({{"mimetype", "application/vnd.oasis.opendocument.text", true},
                                                   {"content.xml", "\x01\x02 encrypted bytes"},
                                                   {"META-INF/manifest.xml", manifest}});
    const auto r = extract(odt);
    ASSERT_TRUE(r.error) << r.method;
    EXPECT_EQ(r.error->code, core::ErrorCode::encrypted_document);
}

// A password-protected OOXML file is an OLE compound file with an EncryptionInfo stream.
std::string ole_with_stream(const std::u16string& name) {
    std::string bytes("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", 8);
    bytes.resize(1024, '\0');
    for (char16_t c : name) {
        bytes += static_cast<char>(c & 0xFF);
        bytes += static_cast<char>(c >> 8);
    }
    bytes.resize(2048, '\0');
    return bytes;
}

TEST(DocumentSafety, EncryptedOoxmlIsEncryptedDocumentAndLegacyOfficeNotApplicable) {
    const std::string encrypted = ole_with_stream(u"EncryptionInfo");
    EXPECT_EQ(extractors::refine_content_type(span_of(encrypted), "application/x-ole-storage"),
              "application/encrypted");
    const auto r = extract(encrypted);
    ASSERT_TRUE(r.error) << r.method;
    EXPECT_EQ(r.error->code, core::ErrorCode::encrypted_document);
    // A legacy Word file: libmagic's application/msword has no extractor (not_applicable).
    EXPECT_EQ(extractors::find_extractor("application/msword"), nullptr);
    EXPECT_EQ(extractors::find_extractor("application/vnd.ms-outlook"), nullptr);
    const std::string legacy = ole_with_stream(u"WordDocument");
    EXPECT_EQ(extractors::find_extractor(type_of(legacy)), nullptr) << type_of(legacy);
}

TEST(DocumentSafety, PlainZipIsNotADocument) {
    const std::string z = testsupport::make_zip({{"a.txt", "hello"}});
    EXPECT_EQ(type_of(z), "application/zip");
    EXPECT_EQ(extractors::find_extractor("application/zip"), nullptr);
}

TEST(DocumentThumbnail, EmbeddedPreviewIsFound) {
    const std::string png = "\x89PNG fake";
    const auto preview = extractors::embedded_preview(span_of(testsupport::docx_with_thumbnail(png)), {});
    ASSERT_TRUE(preview);
    EXPECT_EQ(*preview, png);
    EXPECT_FALSE(extractors::embedded_preview(span_of(testsupport::docx_fixture().bytes), {}));
}

TEST(DocumentThumbnail, EpubCoverAndOdfThumbnailAreFound) {
    const std::string opf = "<package xmlns=\"http://www.idpf.org/2007/opf\"><manifest><item id=\"c\" "
                            "href=\"img/cover.png\" properties=\"cover-image\" media-type=\"image/png\"/></manifest>"
                            "<spine/></package>";
    const std::string epub =
        testsupport::make_zip({{"mimetype", "application/epub+zip", true},
                               {"META-INF/container.xml",
                                "<container><rootfiles><rootfile full-path=\"OPS/book.opf\"/></rootfiles></container>"},
                               {"OPS/book.opf", opf},
                               {"OPS/img/cover.png", "cover bytes"}});
    EXPECT_EQ(extractors::embedded_preview(span_of(epub), {}).value_or(""), "cover bytes");
    const std::string odt = testsupport::make_zip({{"mimetype", "application/vnd.oasis.opendocument.text", true},
                                                   {"content.xml", "<x/>"},
                                                   {"Thumbnails/thumbnail.png", "odf preview"}});
    EXPECT_EQ(extractors::embedded_preview(span_of(odt), {}).value_or(""), "odf preview");
}

} // namespace

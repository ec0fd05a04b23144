#include "tests/support/document_builder.hpp"

#include <stdexcept>

#include <zip.h>

namespace testsupport {
namespace {

const char* k_w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const char* k_r = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const char* k_rel_ns = "http://schemas.openxmlformats.org/package/2006/relationships";
const char* k_office_doc = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument";

std::string content_types(const std::string& main_type, const std::string& main_part) {
    return std::string(
               "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
               "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
               "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
               "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
               "<Override PartName=\"/") +
           main_part + "\" ContentType=\"application/vnd.openxmlformats-officedocument." + main_type +
           "+xml\"/></Types>";
}

std::string rels(const std::vector<std::pair<std::string, std::string>>& targets, const std::string& type_base) {
    std::string s = std::string("<?xml version=\"1.0\"?><Relationships xmlns=\"") + k_rel_ns + "\">";
    int id = 1;
    for (const auto& [type, target] : targets) {
        s += "<Relationship Id=\"rId" + std::to_string(id++) + "\" Type=\"" + type_base + type + "\" Target=\"" +
             target + "\"/>";
    }
    return s + "</Relationships>";
}

std::string root_rels(const std::string& main_part) {
    return std::string("<?xml version=\"1.0\"?><Relationships xmlns=\"") + k_rel_ns +
           "\"><Relationship Id=\"rId1\" Type=\"" + k_office_doc + "\" Target=\"" + main_part + "\"/></Relationships>";
}

std::string word_part(const std::string& root, const std::string& inner) {
    return std::string("<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:") + root + " xmlns:w=\"" + k_w + "\" xmlns:r=\"" +
           k_r + "\">" + inner + "</w:" + root + ">";
}

std::string para(const std::string& text) {
    return "<w:p><w:pPr><w:tabs><w:tab w:val=\"left\" w:pos=\"720\"/></w:tabs></w:pPr><w:r><w:t "
           "xml:space=\"preserve\">" +
           text + "</w:t></w:r></w:p>";
}

std::vector<ZipEntry> docx_entries(const std::string& body_xml) {
    const std::string rel_base = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";
    return {
        {"[Content_Types].xml", content_types("wordprocessingml.document.main", "word/document.xml")},
        {"_rels/.rels", root_rels("word/document.xml")},
        {"word/document.xml", body_xml},
        {"word/_rels/document.xml.rels", rels({{"header", "header1.xml"}, {"footer", "footer1.xml"}}, rel_base)},
        {"word/header1.xml", word_part("hdr", para("Page header"))},
        {"word/footer1.xml", word_part("ftr", para("Page footer"))},
    };
}

} // namespace

std::string make_zip(const std::vector<ZipEntry>& entries) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* src = zip_source_buffer_create(nullptr, 0, 0, &error);
    zip_t* z = zip_open_from_source(src, ZIP_TRUNCATE, &error);
    if (z == nullptr) throw std::runtime_error("zip_open_from_source");
    zip_source_keep(src);
    for (const ZipEntry& e : entries) {
        zip_source_t* data = zip_source_buffer(z, e.data.data(), e.data.size(), 0);
        const zip_int64_t index = zip_file_add(z, e.name.c_str(), data, ZIP_FL_ENC_UTF_8);
        if (index < 0) throw std::runtime_error("zip_file_add " + e.name);
        if (e.stored) zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
        if (e.encrypted &&
            zip_file_set_encryption(z, static_cast<zip_uint64_t>(index), ZIP_EM_AES_256, "secret") != 0) {
            throw std::runtime_error("zip_file_set_encryption");
        }
    }
    if (zip_close(z) != 0) throw std::runtime_error("zip_close");
    zip_stat_t st;
    zip_source_stat(src, &st);
    std::string out(st.size, '\0');
    zip_source_open(src);
    zip_source_read(src, out.data(), st.size);
    zip_source_close(src);
    zip_source_free(src);
    zip_error_fini(&error);
    return out;
}

std::string docx_with_body(const std::string& body_xml) {
    return make_zip(docx_entries(body_xml));
}

DocumentFixture docx_fixture() {
    const std::string table = "<w:tbl><w:tblPr/><w:tr><w:tc><w:tcPr/>" + para("Name") + "</w:tc><w:tc>" + para("Qty") +
                              "</w:tc></w:tr><w:tr><w:tc>" + para("Apples") + "</w:tc><w:tc>" + para("3") +
                              "</w:tc></w:tr></w:tbl>";
    const std::string list = "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr></w:pPr>"
                             "<w:r><w:t>First item</w:t></w:r></w:p>";
    const std::string tabbed = "<w:p><w:r><w:t>Left</w:t></w:r><w:r><w:tab/><w:t>Right</w:t></w:r>"
                               "<w:r><w:br/><w:t>Next line</w:t></w:r>"
                               "<w:r><w:instrText> PAGE </w:instrText></w:r><w:del><w:r><w:delText>gone</w:delText>"
                               "</w:r></w:del></w:p>";
    const std::string body =
        word_part("document", "<w:body>" + para("Quarterly report") + para("Caf\xC3\xA9 &amp; more") + table + list +
                                  tabbed + "<w:sectPr/></w:body>");
    return {docx_with_body(body),
            "Quarterly report\nCaf\xC3\xA9 & more\nName\tQty\nApples\t3\nFirst item\nLeft\tRight\n"
            "Next line\nPage header\nPage footer"};
}

std::string docx_with_thumbnail(const std::string& png) {
    auto entries = docx_entries(word_part("document", "<w:body>" + para("Hi") + "</w:body>"));
    entries.push_back({"docProps/thumbnail.png", png});
    return make_zip(entries);
}

} // namespace testsupport

// XLSX, PPTX, ODT, ODS and EPUB fixtures (DOCX and the zip writer: document_builder.cpp).
#include "tests/support/document_builder.hpp"

namespace testsupport {
namespace {

const std::string k_rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/";
const std::string k_rels_open =
    "<?xml version=\"1.0\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">";

std::string relationship(const std::string& id, const std::string& type, const std::string& target) {
    return "<Relationship Id=\"" + id + "\" Type=\"" + k_rel + type + "\" Target=\"" + target + "\"/>";
}

std::string types(const std::string& main_type, const std::string& part) {
    return "<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
           "<Override PartName=\"/" +
           part + "\" ContentType=\"application/vnd.openxmlformats-officedocument." + main_type + "+xml\"/></Types>";
}

std::string sheet(const std::string& rows) {
    return "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>" + rows +
           "</sheetData></worksheet>";
}

const std::string k_a = "xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" "
                        "xmlns:p=\"http://schemas.openxmlformats.org/presentationml/2006/main\" "
                        "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";

std::string slide(const std::string& title, const std::string& body) {
    return "<p:sld " + k_a +
           "><p:cSld><p:spTree><p:sp><p:nvSpPr><p:cNvPr id=\"2\" name=\"Title 1\"/></p:nvSpPr><p:txBody><a:p><a:r>"
           "<a:t>" +
           title + "</a:t></a:r></a:p></p:txBody></p:sp><p:sp><p:txBody><a:p><a:r><a:t>" + body +
           "</a:t></a:r><a:fld "
           "type=\"slidenum\"><a:t>7</a:t></a:fld></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>";
}

const std::string k_office = "xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
                             "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\" "
                             "xmlns:table=\"urn:oasis:names:tc:opendocument:xmlns:table:1.0\"";

std::string odf(const std::string& mimetype, const std::string& body, const std::string& manifest_extra = "") {
    const std::string manifest =
        "<?xml version=\"1.0\"?><manifest:manifest "
        "xmlns:manifest=\"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0\"><manifest:file-entry "
        "manifest:full-path=\"content.xml\" manifest:media-type=\"text/xml\">" +
        manifest_extra + "</manifest:file-entry></manifest:manifest>";
    return make_zip({{"mimetype", mimetype, true},
                     {"content.xml", "<?xml version=\"1.0\"?><office:document-content " + k_office + "><office:body>" +
                                         body + "</office:body></office:document-content>"},
                     {"META-INF/manifest.xml", manifest}});
}

std::string xhtml(const std::string& body) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><html "
           "xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>T</title>"
           "<style>p { color: red }</style></head><body>" +
           body + "</body></html>";
}

} // namespace

DocumentFixture xlsx_fixture() {
    const std::string workbook =
        "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
        "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"><sheets>"
        "<sheet name=\"Budget\" sheetId=\"1\" r:id=\"rId1\"/><sheet name=\"Notes\" sheetId=\"2\" r:id=\"rId2\"/>"
        "</sheets></workbook>";
    const std::string strings =
        "<sst xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
        "<si><t>Item</t></si><si><t>Cost</t></si><si><r><t>Rent</t></r><r><t> (flat)</t></r></si>"
        "</sst>";
    const std::string budget =
        sheet("<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"s\"><v>1</v></c></row>"
              "<row r=\"2\"><c r=\"A2\" t=\"s\"><v>2</v></c><c r=\"B2\"><f>SUM(1,2)</f><v>1200.5</v>"
              "</c><c r=\"D2\" t=\"b\"><v>1</v></c></row>");
    const std::string notes = sheet("<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>Checked</t></is></c></row>");
    return {make_zip({{"[Content_Types].xml", types("spreadsheetml.sheet.main", "xl/workbook.xml")},
                      {"_rels/.rels",
                       k_rels_open + relationship("rId1", "officeDocument", "xl/workbook.xml") + "</Relationships>"},
                      {"xl/workbook.xml", workbook},
                      {"xl/_rels/workbook.xml.rels",
                       k_rels_open + relationship("rId1", "worksheet", "worksheets/sheet1.xml") +
                           relationship("rId2", "worksheet", "worksheets/sheet2.xml") +
                           relationship("rId3", "sharedStrings", "sharedStrings.xml") + "</Relationships>"},
                      {"xl/sharedStrings.xml", strings},
                      {"xl/worksheets/sheet1.xml", budget},
                      {"xl/worksheets/sheet2.xml", notes}}),
            "Budget\nItem\tCost\nRent (flat)\t1200.5\t\tTRUE\fNotes\nChecked"};
}

DocumentFixture pptx_fixture() {
    const std::string presentation =
        "<p:presentation " + k_a +
        "><p:sldIdLst><p:sldId id=\"257\" r:id=\"rId3\"/><p:sldId id=\"256\" r:id=\"rId2\"/>"
        "</p:sldIdLst></p:presentation>";
    return {make_zip({{"[Content_Types].xml", types("presentationml.presentation.main", "ppt/presentation.xml")},
                      {"_rels/.rels", k_rels_open + relationship("rId1", "officeDocument", "ppt/presentation.xml") +
                                          "</Relationships>"},
                      {"ppt/presentation.xml", presentation},
                      {"ppt/_rels/presentation.xml.rels",
                       k_rels_open + relationship("rId2", "slide", "slides/slide1.xml") +
                           relationship("rId3", "slide", "slides/slide2.xml") + "</Relationships>"},
                      {"ppt/slides/slide1.xml", slide("Second title", "Second body")},
                      {"ppt/slides/slide2.xml", slide("First title", "First body")}}),
            "First title\nFirst body\fSecond title\nSecond body"};
}

DocumentFixture odt_fixture() {
    const std::string body =
        "<office:text><text:h>Minutes</text:h><text:p>Present:<text:tab/>Ann<text:s text:c=\"2\"/>"
        "Bob</text:p><text:list><text:list-item><text:p>Budget</text:p></text:list-item>"
        "</text:list><table:table table:name=\"T\"><table:table-column/><table:table-row>"
        "<table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell><text:p>b</text:p>"
        "</table:table-cell></table:table-row></table:table></office:text>";
    return {odf("application/vnd.oasis.opendocument.text", body), "Minutes\nPresent:\tAnn  Bob\nBudget\na\tb"};
}

DocumentFixture ods_fixture() {
    auto table = [](const std::string& name, const std::string& cell) {
        return "<table:table table:name=\"" + name + "\"><table:table-row><table:table-cell><text:p>" + cell +
               "</text:p></table:table-cell><table:table-cell table:number-columns-repeated=\"1000\"/>"
               "</table:table-row></table:table>";
    };
    return {odf("application/vnd.oasis.opendocument.spreadsheet",
                "<office:spreadsheet>" + table("One", "x") + table("Two", "y") + "</office:spreadsheet>"),
            "One\nx\fTwo\ny"};
}

DocumentFixture odp_fixture() {
    auto page = [](const std::string& title, const std::string& body) {
        return "<draw:page><draw:frame><draw:text-box><text:p>" + title +
               "</text:p></draw:text-box></draw:frame><draw:frame><draw:text-box><text:list><text:list-item><text:p>" +
               body + "</text:p></text:list-item></text:list></draw:text-box></draw:frame></draw:page>";
    };
    return {odf("application/vnd.oasis.opendocument.presentation",
                "<office:presentation xmlns:draw=\"urn:oasis:names:tc:opendocument:xmlns:drawing:1.0\">" +
                    page("Intro", "Why") + page("Plan", "How") + "</office:presentation>"),
            "Intro\nWhy\fPlan\nHow"};
}

DocumentFixture epub_fixture() {
    const std::string opf =
        "<?xml version=\"1.0\"?><package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\"><metadata/><manifest>"
        "<item id=\"c2\" href=\"text/ch2.xhtml\" media-type=\"application/xhtml+xml\"/>"
        "<item id=\"c1\" href=\"text/ch%201.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>"
        "<spine><itemref idref=\"c1\"/><itemref idref=\"c2\"/></spine></package>";
    return {make_zip({{"mimetype", "application/epub+zip", true},
                      {"META-INF/container.xml",
                       "<?xml version=\"1.0\"?><container xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" "
                       "version=\"1.0\"><rootfiles><rootfile full-path=\"OEBPS/content.opf\" "
                       "media-type=\"application/oebps-package+xml\"/></rootfiles></container>"},
                      {"OEBPS/content.opf", opf},
                      {"OEBPS/text/ch2.xhtml", xhtml("<h1>Chapter 2</h1><p>The end.</p>")},
                      {"OEBPS/text/ch 1.xhtml", xhtml("<h1>Chapter 1</h1><p>It was a <em>dark</em> night.</p>")}}),
            "Chapter 1\nIt was a dark night.\fChapter 2\nThe end."};
}

} // namespace testsupport

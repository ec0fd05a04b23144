// Documents through the real sandboxed helper (`ingestd process`, seccomp and Landlock on):
// a DOCX, an XLSX, an e-mail, RTF and HTML give their text, a zip bomb ends
// too_large_unpacked, a DOCX's embedded preview becomes its thumbnails, and a PDF page over the
// pixel budget ends too_many_pixels at once.
#include "tests/support/corpus.hpp"
#include "tests/support/document_builder.hpp"
#include "tests/support/generated_file.hpp"
#include "tests/support/pdf_builder.hpp"
#include "tests/support/worker_process.hpp"

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include <gtest/gtest.h>

namespace {

using testsupport::TempDir;

std::vector<nlohmann::json> process(const TempDir& dir, const std::vector<std::string>& names) {
    std::string cmd = "process --out " + (dir.path() / "out").string();
    for (const auto& n : names) cmd += " " + (dir.path() / n).string();
    int status = -1;
    const std::string out = testsupport::run_ingestd(cmd + " 2>/dev/null", {}, &status);
    std::vector<nlohmann::json> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

TEST(DocumentProcess, DocumentsParseInsideTheSandboxedHelper) {
    TempDir dir;
    const auto docx = testsupport::docx_fixture(), xlsx = testsupport::xlsx_fixture();
    testsupport::write_file(dir.path() / "a.docx", docx.bytes);
    testsupport::write_file(dir.path() / "b.xlsx", xlsx.bytes);
    testsupport::write_file(dir.path() / "c.eml", "From: a@example.com\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\n"
                                                  "Content-Type: text/plain; charset=ISO-8859-1\n\nSch\xF6n\n");
    testsupport::write_file(dir.path() / "d.rtf", "{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}\\f0 Hello \\'e9t\\'e9\\par}");
    testsupport::write_file(dir.path() / "e.html", "<html><head><script>x()</script></head><body><p>Hi &amp; bye</p>"
                                                   "</body></html>");
    const std::string zeros(100u << 20, '\0');
    testsupport::write_file(
        dir.path() / "f.docx",
        testsupport::make_zip(
            {{"[Content_Types].xml", "<Types>wordprocessingml.document.main</Types>"}, {"word/document.xml", zeros}}));
    const auto lines = process(dir, {"a.docx", "b.xlsx", "c.eml", "d.rtf", "e.html", "f.docx"});
    ASSERT_EQ(lines.size(), 6u);
    EXPECT_EQ(lines[0].value("extracted_text", ""), docx.expected_text) << lines[0].dump();
    EXPECT_EQ(lines[0].value("extraction_method", ""), "document");
    EXPECT_EQ(lines[0].value("thumbnail_status", ""), "not_applicable") << lines[0].dump();
    EXPECT_EQ(lines[1].value("extracted_text", ""), xlsx.expected_text) << lines[1].dump();
    EXPECT_EQ(lines[2].value("extracted_text", ""), "From: a@example.com\nSubject: Gr\xC3\xBC\xC3\x9F"
                                                    "e\n\nSch\xC3\xB6n")
        << lines[2].dump();
    EXPECT_EQ(lines[3].value("extracted_text", ""), "Hello \xC3\xA9t\xC3\xA9") << lines[3].dump();
    EXPECT_EQ(lines[4].value("extracted_text", ""), "Hi & bye") << lines[4].dump();
    EXPECT_EQ(lines[4].value("extraction_method", ""), "markup");
    EXPECT_EQ(lines[5].value("extraction_error_code", ""), "too_large_unpacked") << lines[5].dump();
}

TEST(DocumentProcess, EmbeddedPreviewBecomesTheThumbnail) {
    TempDir dir;
    testsupport::write_image(dir.path() / "preview.png", 64, 48);
    const std::string png = testsupport::read_file(dir.path() / "preview.png");
    ASSERT_GT(png.size(), 8u);
    testsupport::write_file(dir.path() / "p.docx", testsupport::docx_with_thumbnail(png));
    const auto lines = process(dir, {"p.docx"});
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].value("thumbnail_status", ""), "done") << lines[0].dump();
    EXPECT_EQ(lines[0].value("extracted_text", ""), "Hi\nPage header\nPage footer");
}

// Issue 18's PDF through the sandboxed helper: a 1 MiB page drawing a 32768² image of
// compressed zeros ends too_many_pixels for text (OCR) and thumbnails in under 5 s, not after
// a minute of rendering.
TEST(DocumentProcess, PixelBombPdfEndsTooManyPixelsInUnderFiveSeconds) {
    TempDir dir;
    testsupport::write_file(dir.path() / "bomb.pdf", testsupport::zero_image_pdf(32768, 32768));
    const auto start = std::chrono::steady_clock::now();
    const auto lines = process(dir, {"bomb.pdf"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].value("status", ""), "done") << lines[0].dump();
    EXPECT_EQ(lines[0].value("extraction_error_code", ""), "too_many_pixels") << lines[0].dump();
    EXPECT_EQ(lines[0].value("thumbnail_error_code", ""), "too_many_pixels") << lines[0].dump();
    EXPECT_EQ(lines[0].value("error_code", ""), "too_many_pixels");
    EXPECT_LT(seconds, 5.0);
    std::printf("[ figures  ] ingestd process on the 32768^2 zero-image PDF: %.2f s\n", seconds);
}

TEST(DocumentProcess, OutputEscapesUnicodeLineSeparators) {
    TempDir dir;
    const std::string text = "one\xE2\x80\xA8two\xE2\x80\xA9three";
    testsupport::write_file(dir.path() / "sep.txt", text);
    int status = -1;
    const std::string out = testsupport::run_ingestd("process --steps text --out " + (dir.path() / "out").string() +
                                                         " " + (dir.path() / "sep.txt").string() + " 2>/dev/null",
                                                     {}, &status);
    EXPECT_EQ(out.find("\xE2\x80\xA8"), std::string::npos) << out;
    EXPECT_EQ(out.find("\xE2\x80\xA9"), std::string::npos) << out;
    EXPECT_NE(out.find("\\u2028"), std::string::npos) << out;
    EXPECT_EQ(nlohmann::json::parse(out).value("extracted_text", ""), text);
}

} // namespace

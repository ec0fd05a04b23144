// PDFs that cannot be read as they are: encrypted, damaged, not PDFs, or out of time.
#include "tests/extractors/pdf_fixtures.hpp"

#include <optional>

using namespace pdftest;
using testsupport::TempDir;
using texttest::quoted;
using texttest::run;

namespace {

// What a corpus file gives: a failure code, or done with `method` and `pages`.
struct Expected {
    const char* file;
    std::optional<core::ErrorCode> code;
    const char* method = "";
    int pages = 0;
};

// Checks each corpus file of `folder` against its row, and that pdftotext reads exactly the
// files we read.
void expect_rows(const std::string& folder, const std::vector<Expected>& rows) {
    for (const Expected& row : rows) {
        SCOPED_TRACE(row.file);
        const auto path = testsupport::corpus_file(folder + row.file);
        ASSERT_FALSE(path.empty()) << "missing from the corpus";
        TextOptions options;
        options.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        const TextResult r = extract_file(path, options);
        EXPECT_EQ(pdftotext_reads(path), !row.code) << "pdftotext disagrees";
        const std::optional<core::ErrorCode> code = r.error ? std::optional(r.error->code) : std::nullopt;
        EXPECT_EQ(code, row.code) << (r.error ? r.error->message : "done, method " + r.method);
        if (row.code) {
            EXPECT_TRUE(r.text.empty());
        } else {
            EXPECT_EQ(r.method, row.method);
            EXPECT_EQ(r.page_count, row.pages);
        }
    }
}

} // namespace

TEST(PdfText, EncryptedWithUserPasswordIsEncryptedPdf) {
    INGEST_REQUIRE_TOOL("qpdf");
    TempDir dir;
    const auto plain = dir.path() / "plain.pdf";
    const auto locked = dir.path() / "locked.pdf";
    const auto owner = dir.path() / "owner.pdf";
    testsupport::write_file(plain, one_page_pdf("BT /F1 24 Tf 72 700 Td (Quarterly report 2024) Tj ET"));
    ASSERT_EQ(
        run("qpdf --encrypt secret secret 256 -- " + quoted(plain.string()) + " " + quoted(locked.string())).status, 0);
    ASSERT_EQ(run("qpdf --encrypt '' owner 256 -- " + quoted(plain.string()) + " " + quoted(owner.string())).status, 0);

    const TextResult l = extract_file(locked);
    ASSERT_TRUE(l.error);
    EXPECT_EQ(l.error->code, core::ErrorCode::encrypted_pdf);
    EXPECT_FALSE(l.error->message.empty());
    EXPECT_TRUE(l.text.empty());

    // An owner password alone locks nothing: the text is read.
    const TextResult o = extract_file(owner);
    ASSERT_FALSE(o.error) << o.error->message;
    EXPECT_EQ(o.method, "text_layer");
    EXPECT_EQ(trimmed(o.text), "Quarterly report 2024");
}

TEST(PdfText, CorpusEncryptedFilesOpenOrSayEncrypted) {
    INGEST_CORPUS_FILE(any, "pdf/encrypted/secHandler.pdf");
    expect_rows("pdf/encrypted/", {
                                      {"empty_protected.pdf", std::nullopt, "ocr", 1},
                                      {"secHandler.pdf", std::nullopt, "text_layer", 1},
                                      {"print_protection.pdf", core::ErrorCode::encrypted_pdf},
                                  });
}

TEST(PdfText, CorruptFilesFailWherePdftotextCannotRead) {
    INGEST_CORPUS_FILE(any, "pdf/bad/invalid.pdf");
    const auto corrupt = core::ErrorCode::corrupt_file;
    expect_rows("pdf/bad/", {
                                {"Brotli-Prototype-FileA.pdf", corrupt},
                                {"GHOSTSCRIPT-698804-1-fuzzed.pdf", std::nullopt, "ocr", 1},
                                {"Pages-tree-refs.pdf", std::nullopt, "text_layer", 2},
                                {"REDHAT-1531897-0.pdf", corrupt},
                                {"bug1020226.pdf", corrupt},
                                {"helloworld-bad.pdf", std::nullopt, "text_layer", 1},
                                {"invalid.pdf", corrupt},
                                {"pdfjsbad1586.pdf", std::nullopt, "text_layer", 1},
                                {"poppler-395-0-fuzzed.pdf", corrupt},
                                {"poppler-67295-0.pdf", corrupt},
                                {"poppler-85140-0.pdf", corrupt},
                                {"poppler-937-0-fuzzed.pdf", std::nullopt, "text_layer", 1},
                                {"xref_command_missing.pdf", std::nullopt, "text_layer", 1},
                            });
}

TEST(PdfText, NotAPdfIsCorrupt) {
    for (const std::string& bytes : {std::string(), std::string("%PDF-1.7\n garbage"), std::string(4096, '\x01')}) {
        const TextResult r = extract_pdf_text(as_bytes(bytes), {});
        ASSERT_TRUE(r.error);
        EXPECT_EQ(r.error->code, core::ErrorCode::corrupt_file);
        EXPECT_TRUE(r.text.empty());
        EXPECT_FALSE(r.page_count);
    }
}

TEST(PdfText, PastDeadlineIsTimeoutWithPageCount) {
    const std::string pdf = numbered_text_pdf(3);
    TextOptions options;
    options.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const TextResult r = extract_pdf_text(as_bytes(pdf), options);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, core::ErrorCode::timeout);
    EXPECT_EQ(r.error->message, "The job's time ran out after 0 of 3 PDF pages.");
    EXPECT_EQ(r.page_count, 3);
    EXPECT_EQ(r.pages_read, 0);
    EXPECT_TRUE(r.text.empty());
}

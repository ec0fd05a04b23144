// Every type through a live worker on both stores (the value parameter): a folder, and
// s3rver with uploads by boto3. One file of each kind of ../shared/corpus (its MANIFEST.tsv;
// skipped cleanly without it), and documents made here (office, e-book, e-mail, HTML, text,
// images, PDF), which need nothing from outside.
#include "tests/support/document_builder.hpp"
#include "tests/support/generated_file.hpp"
#include "tests/support/pdf_builder.hpp"
#include "tests/support/worker_fixture.hpp"

#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testsupport::StoreKind;

// One MANIFEST.tsv row: the file, its kind and its SHA-256.
struct CorpusFile {
    std::string path, kind, sha256;
    std::uint64_t size = 0;
};

// The smallest file of each kind.
std::map<std::string, CorpusFile> one_of_each_kind(const fs::path& manifest) {
    std::map<std::string, CorpusFile> kinds;
    std::ifstream in(manifest);
    std::string line;
    std::getline(in, line); // the header
    while (std::getline(in, line)) {
        std::istringstream row(line);
        CorpusFile f;
        std::string source, size;
        if (!std::getline(row, f.path, '\t') || !std::getline(row, source, '\t') || !std::getline(row, f.kind, '\t') ||
            !std::getline(row, size, '\t') || !std::getline(row, f.sha256, '\t'))
            continue;
        f.size = std::stoull(size);
        auto it = kinds.find(f.kind);
        if (it == kinds.end() || f.size < it->second.size) kinds[f.kind] = f;
    }
    return kinds;
}

bool broken_kind(const std::string& kind) {
    for (const char* k : {"corrupt", "malformed", "encrypted", "unsupported"}) {
        if (kind.find(k) != std::string::npos) return true;
    }
    return false;
}

struct CorpusE2E : ::testing::TestWithParam<StoreKind> {
    testsupport::WorkerFixture fx;

    void SetUp() override {
        std::string why;
        if (!fx.use_store(GetParam(), &why)) GTEST_SKIP() << why;
        fx.env()["INGEST_OCR_MODE"] = "off"; // the types, not OCR's speed
    }
};

TEST_P(CorpusE2E, OneFileOfEveryCorpusKindEndsWithItsHash) {
    INGEST_CORPUS_FILE(manifest, "MANIFEST.tsv");
    const auto kinds = one_of_each_kind(manifest);
    ASSERT_GT(kinds.size(), 20u) << manifest;
    int n = 0;
    std::map<std::string, std::string> ids; // id -> kind
    for (const auto& [kind, f] : kinds) {
        const std::string id = "k" + std::to_string(n++);
        fx.put_copy("corpus/" + id + fs::path(f.path).extension().string(), manifest.parent_path() / f.path);
        fx.submit(id, "corpus/" + id + fs::path(f.path).extension().string(), {{"name", f.path}});
        ids[id] = kind;
    }
    fx.start("corpus");
    for (const auto& [id, kind] : ids) {
        const CorpusFile& f = kinds.at(kind);
        SCOPED_TRACE(kind + ": " + f.path);
        const std::string status = fx.wait_final(id, 180s);
        if (broken_kind(kind)) {
            EXPECT_TRUE(status == "done" || status == "failed") << status;
            continue;
        }
        ASSERT_EQ(status, "done") << fx.field(id, "error");
        EXPECT_EQ(fx.field(id, "content_hash"), f.sha256) << "hashed as it arrived from the store";
        EXPECT_EQ(fx.field(id, "size_bytes"), std::to_string(f.size));
        EXPECT_FALSE(fx.field(id, "content_type").empty());
        const std::string thumb = fx.field(id, "thumbnail_72_key");
        if (!thumb.empty()) EXPECT_EQ(fx.read_output(thumb).substr(8, 4), "WEBP");
    }
}

TEST_P(CorpusE2E, DocumentsMadeHereGiveTheirText) {
    std::map<std::string, testsupport::DocumentFixture> docs = {
        {"d.docx", testsupport::docx_fixture()}, {"d.xlsx", testsupport::xlsx_fixture()},
        {"d.pptx", testsupport::pptx_fixture()}, {"d.odt", testsupport::odt_fixture()},
        {"d.ods", testsupport::ods_fixture()},   {"d.odp", testsupport::odp_fixture()},
        {"d.epub", testsupport::epub_fixture()},
    };
    docs["d.html"] = {"<!DOCTYPE html><html><head><title>T</title></head><body><p>hello from html</p></body></html>\n",
                      "hello from html"};
    docs["d.eml"] = {"From: a@example.org\r\nTo: b@example.org\r\nSubject: greetings\r\nMIME-Version: 1.0\r\n"
                     "Content-Type: text/plain; charset=utf-8\r\n\r\nhello from mail\r\n",
                     "hello from mail"};
    docs["d.txt"] = {"hello from text\n", "hello from text"};
    docs["d.pdf"] = {testsupport::text_pdf({"hello from pdf"}), "hello from pdf"};
    int n = 0;
    std::map<std::string, std::string> ids; // id -> key
    for (const auto& [key, doc] : docs) {
        fx.put("docs/" + key, doc.bytes);
        ids["d" + std::to_string(n++)] = key;
    }
    for (const char* image : {"i.png", "i.jpg", "i.gif", "i.webp", "i.tif"}) {
        testsupport::write_image(fx.dir() / image, 320, 200);
        fx.put_copy(std::string("docs/") + image, fx.dir() / image);
        ids["d" + std::to_string(n++)] = image;
    }
    for (const auto& [id, key] : ids) fx.submit(id, "docs/" + key);
    fx.start("docs");
    for (const auto& [id, key] : ids) {
        SCOPED_TRACE(key);
        ASSERT_EQ(fx.wait_final(id, 120s), "done") << fx.field(id, "error");
        if (docs.count(key)) {
            EXPECT_EQ(fx.field(id, "extraction_status"), "done");
            EXPECT_NE(fx.field(id, "extracted_text").find(docs[key].expected_text), std::string::npos)
                << fx.field(id, "extracted_text");
        } else {
            ASSERT_EQ(fx.field(id, "thumbnail_status"), "done");
            EXPECT_EQ(fx.read_output(fx.field(id, "thumbnail_144_key")).substr(0, 4), "RIFF");
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Stores, CorpusE2E, ::testing::Values(StoreKind::filesystem, StoreKind::s3),
                         testsupport::store_name);

} // namespace

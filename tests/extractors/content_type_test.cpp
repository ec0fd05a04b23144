#include "extractors/content_type.hpp"

#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

std::string detect(const std::filesystem::path& p) {
    int fd = ::open(p.c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    std::string mime = extractors::detect_content_type(fd);
    ::close(fd);
    return mime;
}

std::string file_mime(const std::filesystem::path& p) {
    std::string out = testsupport::run_command("file -b --mime-type '" + p.string() + "'");
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

struct Case {
    const char* file;
    const char* mime;
    extractors::Kind kind;
};

class ContentTypeCorpus : public ::testing::TestWithParam<Case> {};

TEST_P(ContentTypeCorpus, DetectsFromBytesLikeFile) {
    INGEST_CORPUS_FILE(path, GetParam().file);
    std::string mime = detect(path);
    EXPECT_EQ(mime, GetParam().mime);
    EXPECT_EQ(mime, file_mime(path)) << "libmagic defaults must match file --mime-type";
    EXPECT_EQ(extractors::kind_of(mime), GetParam().kind);
}

INSTANTIATE_TEST_SUITE_P(
    RealFiles, ContentTypeCorpus,
    ::testing::Values(Case{"pdf/text/tracemonkey.pdf", "application/pdf", extractors::Kind::pdf},
                      Case{"img/jpeg/flower.jpg", "image/jpeg", extractors::Kind::image},
                      Case{"img/png/transparent.png", "image/png", extractors::Kind::image},
                      Case{"img/gif/hopper.gif", "image/gif", extractors::Kind::image},
                      Case{"img/webp/flower.webp", "image/webp", extractors::Kind::image},
                      Case{"img/tiff/sample.tif", "image/tiff", extractors::Kind::image}));

TEST(ContentType, DeclaredNameNeverMatters) {
    INGEST_CORPUS_FILE(pdf, "pdf/text/doc_1_3_pages.pdf");
    testsupport::TempDir dir;
    auto fake = dir.path() / "photo.jpg";
    std::filesystem::copy_file(pdf, fake);
    EXPECT_EQ(detect(fake), "application/pdf");
}

TEST(ContentType, TextAndBinary) {
    testsupport::TempDir dir;
    testsupport::write_file(dir.path() / "a", "hello, world\n");
    testsupport::write_file(dir.path() / "b", "{\"a\": [1, 2, 3]}\n");
    std::string bin;
    for (int i = 0; i < 4096; ++i) bin.push_back(static_cast<char>((i * 7919) & 0xFF));
    testsupport::write_file(dir.path() / "c", bin);
    EXPECT_EQ(detect(dir.path() / "a"), "text/plain");
    EXPECT_EQ(extractors::kind_of(detect(dir.path() / "b")), extractors::Kind::text);
    EXPECT_EQ(extractors::kind_of(detect(dir.path() / "c")), extractors::Kind::other);
    EXPECT_EQ(extractors::detect_content_type_buffer("%PDF-1.4\n", 9), "application/pdf");
}

TEST(ContentType, DetectionLeavesOffsetUsableAndIsRepeatable) {
    testsupport::TempDir dir;
    testsupport::write_file(dir.path() / "a", "plain words\n");
    int fd = ::open((dir.path() / "a").c_str(), O_RDONLY);
    EXPECT_EQ(extractors::detect_content_type(fd), "text/plain");
    EXPECT_EQ(extractors::detect_content_type(fd), "text/plain");
    ::close(fd);
}

} // namespace

#include "extractors/sniff/content_type.hpp"
#include "extractors/sniff/ocr_time.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"

#include <algorithm>
#include <cctype>
#include <ostream>

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

void PrintTo(const Case& c, std::ostream* out) {
    *out << c.file;
}

// The test's name: the file's name without its folders ("flower_jpg").
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
    std::string name = std::filesystem::path(info.param.file).filename().string();
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

class ContentTypeCorpus : public ::testing::TestWithParam<Case> {};

TEST_P(ContentTypeCorpus, DetectsFromBytesLikeFile) {
    INGEST_CORPUS_FILE(path, GetParam().file);
    std::string mime = detect(path);
    EXPECT_EQ(mime, GetParam().mime);
    EXPECT_EQ(mime, file_mime(path)) << "libmagic defaults must match file --mime-type";
    EXPECT_EQ(extractors::kind_of(mime), GetParam().kind);
}

INSTANTIATE_TEST_SUITE_P(RealFiles, ContentTypeCorpus,
                         ::testing::Values(Case{"pdf/text/tracemonkey.pdf", "application/pdf", extractors::Kind::pdf},
                                           Case{"img/jpeg/flower.jpg", "image/jpeg", extractors::Kind::image},
                                           Case{"img/png/transparent.png", "image/png", extractors::Kind::image},
                                           Case{"img/gif/hopper.gif", "image/gif", extractors::Kind::image},
                                           Case{"img/webp/flower.webp", "image/webp", extractors::Kind::image},
                                           Case{"img/tiff/sample.tif", "image/tiff", extractors::Kind::image}),
                         case_name);

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

// The spec's "Types": XML (whatever it describes, SVG included) and JSON are text, read as
// their raw text; kind_of is what the job runner and the extractor registry both follow.
TEST(ContentType, XmlSvgAndJsonAreText) {
    testsupport::TempDir dir;
    const std::pair<const char*, std::string> files[] = {
        {"text/xml", "<?xml version=\"1.0\"?>\n<order id=\"7\"><item>tea</item></order>\n"},
        {"image/svg+xml", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"></svg>\n"},
        {"application/json", "{\"a\": [1, 2, 3]}\n"},
    };
    for (const auto& [mime, bytes] : files) {
        testsupport::write_file(dir.path() / "f", bytes);
        const std::string detected = detect(dir.path() / "f");
        EXPECT_EQ(detected, mime);
        EXPECT_EQ(extractors::kind_of(detected), extractors::Kind::text) << detected;
    }
    for (const char* mime : {"application/xml", "application/rss+xml", "application/atom+xml", "text/csv",
                             "application/csv", "application/x-ndjson", "application/javascript", "text/html"}) {
        EXPECT_EQ(extractors::kind_of(mime), extractors::Kind::text) << mime;
    }
}

TEST(ContentType, KindsAndTheirNames) {
    const std::pair<const char*, extractors::Kind> kinds[] = {
        {"application/pdf", extractors::Kind::pdf},
        {"image/png", extractors::Kind::image},
        {"image/bmp", extractors::Kind::image},
        {"image/x-icon", extractors::Kind::image},
        {"text/plain", extractors::Kind::text},
        {"audio/mpeg", extractors::Kind::other},
        // A zip may be an office document libmagic did not name: the helper looks inside.
        {"application/zip", extractors::Kind::document},
        {"application/vnd.openxmlformats-officedocument.wordprocessingml.document", extractors::Kind::document},
        {"application/vnd.ms-excel.sheet.macroEnabled.12", extractors::Kind::document},
        {"application/vnd.oasis.opendocument.text", extractors::Kind::document},
        {"application/epub+zip", extractors::Kind::document},
        {"message/rfc822", extractors::Kind::document},
        {"text/rtf", extractors::Kind::document},
        {"text/html", extractors::Kind::text},
        {"application/msword", extractors::Kind::other},
        {"application/x-empty", extractors::Kind::other},
        {"application/octet-stream", extractors::Kind::other},
    };
    for (const auto& [mime, kind] : kinds) {
        EXPECT_EQ(extractors::kind_of(mime), kind) << mime;
    }
    EXPECT_EQ(extractors::to_string(extractors::Kind::pdf), "pdf");
    EXPECT_EQ(extractors::to_string(extractors::Kind::image), "image");
    EXPECT_EQ(extractors::to_string(extractors::Kind::text), "text");
    EXPECT_EQ(extractors::to_string(extractors::Kind::document), "document");
    EXPECT_EQ(extractors::to_string(extractors::Kind::other), "other");
}

TEST(ContentType, WebVttKeepsItsTypeAndIsText) {
    const std::string vtt = "WEBVTT\n\n00:00:00.000 --> 00:00:02.000\nHello there\n";
    const std::string mime = extractors::detect_content_type_buffer(vtt.data(), vtt.size());
    EXPECT_EQ(mime, "text/vtt");
    EXPECT_EQ(extractors::kind_of(mime), extractors::Kind::text);
}

TEST(ContentType, DetectionLeavesOffsetUsableAndIsRepeatable) {
    testsupport::TempDir dir;
    testsupport::write_file(dir.path() / "a", "plain words\n");
    int fd = ::open((dir.path() / "a").c_str(), O_RDONLY);
    EXPECT_EQ(extractors::detect_content_type(fd), "text/plain");
    EXPECT_EQ(extractors::detect_content_type(fd), "text/plain");
    ::close(fd);
}

// Text that starts like prose skips libmagic's soft-magic rules; everything else, and
// every format we parse, still gets the whole database. Where the two could differ, only a
// text subtype becomes text/plain.
TEST(ContentType, ProseShortcutKeepsEveryOtherVerdictOfFile) {
    testsupport::TempDir dir;
    struct Sample {
        const char* name;
        std::string bytes;
    };
    const std::vector<Sample> samples = {
        {"tiny", "tiny 1\n"},
        {"prose", "Dear team,\nthe meeting is at 10.\n"},
        {"utf8", "Grüße aus Köln, naïve café\n"},
        {"mail", "From: a@b.example\nTo: c@d.example\nSubject: hi\n\nbody\n"},
        {"vcard", "BEGIN:VCARD\nVERSION:3.0\nFN:Ann\nEND:VCARD\n"},
        {"html", "<!doctype html><html><body>hi</body></html>\n"},
        {"svg", "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"></svg>\n"},
        {"pdf-ascii", "%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n"},
        {"ps", "%!PS-Adobe-3.0\n%%EOF\n"},
        {"script", "#!/bin/sh\necho hi\n"},
        {"json", "{\"a\": [1, 2, 3]}\n"},
        {"ini", "key=value\nother=1\n"},
        {"nul", std::string("abc\0def\n", 8)},
        {"binary-later", "plain start\n" + std::string(3000, '\x01')},
    };
    for (const auto& s : samples) {
        const auto path = dir.path() / s.name;
        testsupport::write_file(path, s.bytes);
        const std::string ours = detect(path);
        const std::string file = file_mime(path);
        if (ours != file) {
            EXPECT_EQ(ours, "text/plain") << s.name << ": file says " << file;
            EXPECT_EQ(extractors::kind_of(file), extractors::Kind::text) << s.name << ": file says " << file;
        }
        EXPECT_EQ(extractors::detect_content_type_buffer(s.bytes.data(), s.bytes.size()), ours) << s.name;
    }
    EXPECT_EQ(detect(dir.path() / "tiny"), "text/plain");
    EXPECT_EQ(detect(dir.path() / "mail"), "message/rfc822");
    EXPECT_EQ(detect(dir.path() / "pdf-ascii"), "application/pdf");
    EXPECT_EQ(detect(dir.path() / "svg"), "image/svg+xml");
}

} // namespace

// Issue 20: the worker's cheap look at a file's first bytes, deciding whether its thumbnails
// are committed before a possibly long OCR (magic numbers only; libmagic types the file).
TEST(OcrTime, ScansAndLargerImagesMayTakeLongOthersNot) {
    using extractors::k_slow_image_bytes;
    using extractors::may_take_ocr_time;
    const std::string jpeg = "\xFF\xD8\xFF\xE0 JFIF";
    const std::string png = std::string("\x89PNG\r\n\x1A\n", 8) + "IHDR";
    EXPECT_TRUE(may_take_ocr_time("%PDF-1.7\n", 500));
    EXPECT_TRUE(may_take_ocr_time(std::string(300, ' ') + "%PDF-1.4", 500)) << "stray bytes before the header";
    EXPECT_TRUE(may_take_ocr_time(std::string("II*\0\x08\0\0\0", 8), 100)) << "a TIFF, however small";
    EXPECT_TRUE(may_take_ocr_time(std::string("MM\0*", 4), 100));
    EXPECT_TRUE(may_take_ocr_time(jpeg, k_slow_image_bytes));
    EXPECT_FALSE(may_take_ocr_time(jpeg, k_slow_image_bytes - 1)) << "a small image is read quickly";
    EXPECT_TRUE(may_take_ocr_time(png, 1 << 20));
    EXPECT_TRUE(may_take_ocr_time(std::string("RIFF\0\0\0\0WEBPVP8 ", 16), 1 << 20));
    EXPECT_TRUE(may_take_ocr_time(std::string("\0\0\0\x1C"
                                              "ftypheic",
                                              12),
                                  1 << 20));
    EXPECT_FALSE(may_take_ocr_time("hello, world\n", 1 << 20)) << "text";
    EXPECT_FALSE(may_take_ocr_time(std::string("PK\3\4", 4), 1 << 20)) << "an office document";
    EXPECT_FALSE(may_take_ocr_time(std::string(2000, 'x') + "%PDF-1.4", 1 << 20)) << "past the first 1024 bytes";
    EXPECT_FALSE(may_take_ocr_time("", 0));
}

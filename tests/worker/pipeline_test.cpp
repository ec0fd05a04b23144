#include "core/file_error.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/generated_file.hpp"
#include "tests/support/pdf_builder.hpp"
#include "thumbnails/thumbnailer.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <map>
#include <set>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using testsupport::TempDir;
using worker::JobSpec;
using worker::PipelineOptions;
using worker::PipelineResult;

struct Run {
    PipelineResult result;
    std::map<std::string, std::string> fields;
};

Run run(const std::filesystem::path& p, JobSpec spec = {}, PipelineOptions options = {}) {
    thumbnails::init();
    if (spec.file_id.empty()) spec.file_id = "f1";
    int fd = ::open(p.c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    auto size = static_cast<std::uint64_t>(std::filesystem::file_size(p));
    Run r{worker::run_pipeline(fd, size, spec, options), {}};
    ::close(fd);
    for (auto& [k, v] : r.result.fields) r.fields[k] = v;
    return r;
}

// Each named field of `r` has its value.
void expect_fields(const Run& r, const std::map<std::string, std::string>& want) {
    for (const auto& [name, value] : want) {
        auto it = r.fields.find(name);
        EXPECT_EQ(it == r.fields.end() ? "(absent)" : it->second, value) << name;
    }
}

TEST(Pipeline, PlainText) {
    TempDir d;
    testsupport::write_file(d.path() / "t", "hello, world\n");
    auto r = run(d.path() / "t");
    EXPECT_FALSE(r.result.file_error_code);
    expect_fields(r, {{"content_type", "text/plain"},
                      {"size_bytes", "13"},
                      {"content_hash", "853ff93762a06ddbf722c4ebe9ddd66d8f63ddaea97f521c3ecc20da7c976020"},
                      {"extraction_status", "done"},
                      {"extraction_method", "plain"},
                      {"extracted_text", "hello, world\n"},
                      {"thumbnail_status", "not_applicable"}});
    EXPECT_TRUE(r.result.outputs.empty());
}

TEST(Pipeline, EmptyAndBinaryAreNotApplicable) {
    TempDir d;
    testsupport::write_file(d.path() / "e", "");
    auto e = run(d.path() / "e");
    EXPECT_FALSE(e.result.file_error_code);
    expect_fields(
        e, {{"size_bytes", "0"}, {"extraction_status", "not_applicable"}, {"thumbnail_status", "not_applicable"}});
    std::string bin;
    for (int i = 0; i < 100000; ++i) bin.push_back(static_cast<char>((i * 2654435761u) >> 13));
    testsupport::write_file(d.path() / "b", bin);
    auto b = run(d.path() / "b");
    expect_fields(b, {{"extraction_status", "not_applicable"},
                      {"thumbnail_status", "not_applicable"},
                      {"content_type", "application/octet-stream"}});
}

TEST(Pipeline, DeclaredSizeAndDigestChecked) {
    TempDir d;
    testsupport::write_file(d.path() / "t", "hello, world\n");
    JobSpec spec;
    spec.expected_size = 999;
    EXPECT_EQ(run(d.path() / "t", spec).result.file_error_code, core::ErrorCode::size_mismatch);
    spec = {};
    spec.expected_sha256 = std::string(64, '0');
    auto r = run(d.path() / "t", spec);
    EXPECT_EQ(r.result.file_error_code, core::ErrorCode::hash_mismatch);
    EXPECT_FALSE(r.fields["error"].empty());
    spec = {};
    spec.expected_size = 13;
    spec.expected_sha256 = "853ff93762a06ddbf722c4ebe9ddd66d8f63ddaea97f521c3ecc20da7c976020";
    EXPECT_FALSE(run(d.path() / "t", spec).result.file_error_code);
}

TEST(Pipeline, LongTextIsCutInlineAndSpilledWhole) {
    TempDir d;
    std::string text;
    while (text.size() < 5000) text += "wörd ";
    testsupport::write_file(d.path() / "t", text);
    PipelineOptions o;
    o.max_text_bytes = 1001; // lands inside the two-byte ö
    auto r = run(d.path() / "t", {}, o);
    EXPECT_LE(r.fields["extracted_text"].size(), 1001u);
    EXPECT_EQ(r.fields["extracted_text_bytes"], std::to_string(text.size()));
    EXPECT_EQ(r.fields["extracted_text_key"], "text/f1.txt");
    ASSERT_EQ(r.result.outputs.size(), 1u);
    EXPECT_EQ(r.result.outputs[0].key, "text/f1.txt");
    // The whole text leaves the parser in a file, never in memory or a message.
    const auto& spilled = r.result.outputs[0];
    ASSERT_TRUE(spilled.file);
    EXPECT_TRUE(spilled.bytes.empty());
    EXPECT_EQ(spilled.file_size, text.size());
    std::string stored(text.size() + 1, '\0');
    EXPECT_EQ(::pread(spilled.file->get(), stored.data(), stored.size(), 0), static_cast<ssize_t>(text.size()));
    stored.resize(text.size());
    EXPECT_EQ(stored, text);
    EXPECT_EQ(text.compare(0, r.fields["extracted_text"].size(), r.fields["extracted_text"]), 0);
}

TEST(Pipeline, OnlyRequestedStepsOwnTheirFields) {
    TempDir d;
    testsupport::write_file(d.path() / "t", "words\n");
    JobSpec spec;
    spec.step_text = false;
    auto r = run(d.path() / "t", spec);
    EXPECT_EQ(r.fields.count("extraction_status"), 0u);
    EXPECT_EQ(r.fields["thumbnail_status"], "not_applicable");
    for (const auto& c : r.result.clear) {
        EXPECT_NE(c, "extracted_text") << "a thumbnails-only run must keep the text fields";
    }
}

TEST(Pipeline, ImageGetsThumbnailsAndDimensions) {
    TempDir d;
    testsupport::write_image(d.path() / "img.png", 300, 200);
    JobSpec spec;
    spec.step_text = false;
    auto r = run(d.path() / "img.png", spec);
    expect_fields(r, {{"content_type", "image/png"},
                      {"thumbnail_status", "done"},
                      {"thumbnail_72_key", "thumbnails/f1/72.webp"},
                      {"width", "300"},
                      {"height", "200"}});
    EXPECT_EQ(r.result.outputs.size(), 3u);
}

TEST(Pipeline, PdfNamedJpegIsAPdf) {
    TempDir d;
    testsupport::write_file(d.path() / "photo.jpg", testsupport::text_pdf({"one", "two", "three"}));
    JobSpec spec;
    spec.step_thumbnails = false;
    auto r = run(d.path() / "photo.jpg", spec);
    expect_fields(r, {{"content_type", "application/pdf"}, {"extraction_status", "done"}, {"page_count", "3"}});
    EXPECT_NE(r.fields["extracted_text"].find("three"), std::string::npos) << r.fields["extracted_text"];
}

TEST(Pipeline, FileFailureClearsResults) {
    auto r = worker::file_failure(core::ErrorCode::storage_missing, "No file.");
    EXPECT_EQ(r.file_error_code, core::ErrorCode::storage_missing);
    bool clears_text = false;
    for (auto& c : r.clear) clears_text = clears_text || c == "extracted_text";
    EXPECT_TRUE(clears_text);
}

} // namespace

namespace {

// A file whose size differs from the one seen at open (truncated or grown while it was read)
// is a transient storage error, never a record with the old size and neither version's hash.
TEST(Pipeline, SizeChangedDuringTheReadIsTransient) {
    TempDir dir;
    const auto path = dir.path() / "f.txt";
    testsupport::write_file(path, "twelve bytes");
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    for (const std::uint64_t size_at_open : {std::uint64_t{20}, std::uint64_t{5}}) {
        try {
            worker::hash_and_check(fd, size_at_open, JobSpec{});
            ADD_FAILURE() << "no error for a size of " << size_at_open << " at open";
        } catch (const core::FileError& e) {
            EXPECT_EQ(e.code(), core::ErrorCode::storage_error);
            EXPECT_TRUE(e.transient());
            EXPECT_NE(std::string(e.what()).find("changed while it was read"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(worker::hash_and_check(fd, 12, JobSpec{}).size(), 64u);
    ::close(fd);
}

} // namespace

namespace {

// `r`'s fields as a map and its clears as a set, less the clears of fields it sets.
std::pair<std::map<std::string, std::string>, std::set<std::string>> shape(const PipelineResult& r) {
    std::map<std::string, std::string> fields(r.fields.begin(), r.fields.end());
    std::set<std::string> clear;
    for (const auto& name : r.clear) {
        if (!fields.count(name)) clear.insert(name);
    }
    return {fields, clear};
}

} // namespace

// Issue 20: a scan's steps run apart (thumbnails committed first, then the text) join into
// the result of both steps run together: the same fields, clears and first failure.
TEST(Pipeline, StepsRunApartJoinToTheResultOfBothTogether) {
    TempDir d;
    testsupport::write_text_scan(d.path() / "scan.jpg", 6);
    const std::string jpeg = testsupport::read_file(d.path() / "scan.jpg");
    testsupport::write_file(d.path() / "cut.jpg", jpeg.substr(0, 4) + std::string(4000, 'x')); // both steps fail
    for (const char* name : {"scan.jpg", "cut.jpg"}) {
        JobSpec thumbnails_only;
        thumbnails_only.step_text = false;
        JobSpec text_only;
        text_only.step_thumbnails = false;
        const auto together = run(d.path() / name);
        PipelineResult joined =
            worker::join_steps(run(d.path() / name, thumbnails_only).result, run(d.path() / name, text_only).result);
        EXPECT_EQ(shape(joined), shape(together.result)) << name;
        EXPECT_EQ(joined.step_failed, together.result.step_failed) << name;
        EXPECT_EQ(worker::check_step_failures(joined), "") << name;
        EXPECT_TRUE(joined.outputs.empty()) << "the thumbnails were written with their early commit";
    }
    const auto cut = run(d.path() / "cut.jpg");
    ASSERT_TRUE(cut.fields.count("extraction_error_code") && cut.fields.count("thumbnail_error_code"));
    EXPECT_EQ(cut.fields.at("error_code"), cut.fields.at("extraction_error_code")) << "text's failure comes first";
}

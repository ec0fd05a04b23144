// The seam for new formats: the extractor registry and the renderer table, and analyse()
// (the helper's step runner) following them with a second extractor plugged in at run time.
#include "extractors/page_share.hpp"
#include "extractors/registry.hpp"
#include "extractors/sniff/content_type.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/pdf_builder.hpp"
#include "thumbnails/thumbnailer.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <atomic>
#include <cctype>
#include <new>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>
#include <vips/vips8>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

constexpr const char* k_test_type = "application/x-ingestd-test";

// The value of `key` in the result's fields, or nullopt.
std::optional<std::string> field(const worker::PipelineResult& r, const std::string& key) {
    for (const auto& [k, v] : r.fields) {
        if (k == key) return v;
    }
    return std::nullopt;
}

// analyse() of `bytes` written to a file, as the helper runs it with the type it detected.
worker::PipelineResult analyse_bytes(const std::string& bytes, const std::string& mime,
                                     const worker::PipelineOptions& options = {}, bool thumbnails = true,
                                     bool text = true) {
    testsupport::TempDir dir;
    testsupport::write_file(dir.path() / "input", bytes);
    const int fd = ::open((dir.path() / "input").c_str(), O_RDONLY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    worker::JobSpec spec;
    spec.file_id = "registry-test";
    spec.step_thumbnails = thumbnails;
    spec.step_text = text;
    worker::PipelineResult r = worker::analyse(fd, bytes.size(), "0123abcd", spec, options, mime);
    ::close(fd);
    return r;
}

// An extractor of the made-up type: its text says which bytes it saw.
extractors::Extractor upper_case_extractor(const std::string& type) {
    return extractors::Extractor{
        .name = "test_upper",
        .accepts = [type](const std::string& mime) { return mime == type; },
        .extract =
            [](std::span<const unsigned char> bytes, const std::string&, const extractors::TextOptions&) {
                extractors::TextResult r;
                r.method = "document";
                for (unsigned char c : bytes) r.text += static_cast<char>(std::toupper(c));
                return r;
            },
        .enabled = {},
    };
}

} // namespace

TEST(Registry, BuiltInRowsFollowKindOf) {
    const std::pair<const char*, const char*> rows[] = {
        {"application/pdf", "pdf_text"},   {"image/png", "image_ocr"},      {"image/tiff", "image_ocr"},
        {"image/bmp", "image_ocr"},        {"text/plain", "plain_text"},    {"text/xml", "plain_text"},
        {"application/xml", "plain_text"}, {"image/svg+xml", "plain_text"}, {"application/json", "plain_text"},
    };
    for (const auto& [mime, name] : rows) {
        const extractors::Extractor* row = extractors::find_extractor(mime);
        ASSERT_NE(row, nullptr) << mime;
        EXPECT_EQ(row->name, name) << mime;
    }
    for (const char* mime : {"audio/mpeg", "application/zip", "image/x-icon", "application/x-empty"}) {
        EXPECT_EQ(extractors::find_extractor(mime), nullptr) << mime;
    }
    // Thumbnails: images libvips reads and PDFs; SVG and BMP loaders stay blocked.
    EXPECT_STREQ(thumbnails::find_renderer("application/pdf")->name, "pdf");
    EXPECT_STREQ(thumbnails::find_renderer("image/jpeg")->name, "image");
    for (const char* mime : {"image/svg+xml", "image/bmp", "text/plain", "audio/mpeg"}) {
        EXPECT_EQ(thumbnails::find_renderer(mime), nullptr) << mime;
    }
}

TEST(Registry, SecondExtractorAddedAtRunTimeIsFoundAndRunByAnalyse) {
    const std::string type = std::string(k_test_type) + "-upper";
    ASSERT_EQ(extractors::find_extractor(type), nullptr);
    const worker::PipelineResult before = analyse_bytes("made-up format", type);
    EXPECT_EQ(field(before, "extraction_status"), "not_applicable");

    extractors::registry().add(upper_case_extractor(type));
    const extractors::Extractor* row = extractors::find_extractor(type);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->name, "test_upper");

    const worker::PipelineResult r = analyse_bytes("made-up format", type);
    EXPECT_FALSE(r.file_error_code);
    const std::pair<const char*, std::string> want[] = {
        {"content_type", type},         {"extraction_status", "done"},     {"extracted_text", "MADE-UP FORMAT"},
        {"extracted_text_bytes", "14"}, {"extraction_method", "document"}, {"thumbnail_status", "not_applicable"},
    };
    for (const auto& [key, value] : want) {
        EXPECT_EQ(field(r, key), value) << key;
    }
    EXPECT_FALSE(r.step_failed);
    EXPECT_FALSE(r.text_error);
}

TEST(Registry, OcrModeOffTurnsTheImageRowOff) {
    worker::PipelineOptions off;
    off.ocr_mode = core::OcrMode::off;
    // Not an image at all: with OCR off the extractor must not even run.
    const worker::PipelineResult r = analyse_bytes("not a png", "image/png", off, false);
    EXPECT_EQ(field(r, "extraction_status"), "not_applicable");
    EXPECT_FALSE(r.text_error);
    const worker::PipelineResult on = analyse_bytes("not a png", "image/png", {}, false);
    EXPECT_EQ(field(on, "extraction_status"), "failed");
}

TEST(Registry, RowsWithoutFunctionsAreRefused) {
    extractors::Registry r;
    EXPECT_THROW(r.add(extractors::Extractor{.name = "empty", .accepts = {}, .extract = {}, .enabled = {}}),
                 std::invalid_argument);
    EXPECT_EQ(r.find("text/plain"), nullptr);
}

TEST(Registry, AddAndFindFromManyThreads) {
    extractors::Registry r;
    std::atomic<int> found{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&r, &found, t] {
            for (int i = 0; i < 50; ++i) {
                const std::string type = "application/x-t" + std::to_string(t) + "-" + std::to_string(i);
                r.add(upper_case_extractor(type));
                if (r.find(type) != nullptr) ++found;
            }
        });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(found.load(), 200);
    EXPECT_NE(r.find("application/x-t3-49"), nullptr);
}

// analyse() records each failed step as a typed value beside its fields.
TEST(RegistryAnalyse, StepFailuresAreTypedValues) {
    thumbnails::init();
    const std::string type = std::string(k_test_type) + "-broken";
    extractors::registry().add(extractors::Extractor{
        .name = "test_broken",
        .accepts = [type](const std::string& mime) { return mime == type; },
        .extract =
            [](std::span<const unsigned char>, const std::string&, const extractors::TextOptions&) {
                extractors::TextResult r;
                r.error = core::Failure{core::ErrorCode::corrupt_file, "The test format is damaged."};
                return r;
            },
        .enabled = {},
    });
    const worker::PipelineResult text = analyse_bytes("anything", type);
    ASSERT_TRUE(text.text_error);
    EXPECT_EQ(text.text_error->code, core::ErrorCode::corrupt_file);
    EXPECT_EQ(text.text_error->message, "The test format is damaged.");
    EXPECT_EQ(field(text, "extraction_error_code"), "corrupt_file");
    EXPECT_EQ(field(text, "error_code"), "corrupt_file");
    EXPECT_FALSE(text.thumbnail_error);
    EXPECT_TRUE(text.step_failed);
    EXPECT_FALSE(text.parser_stopped());

    worker::PipelineOptions no_ocr;
    no_ocr.ocr_mode = core::OcrMode::off;
    const worker::PipelineResult image = analyse_bytes("\x89PNG\r\n\x1a\n but no chunks", "image/png", no_ocr);
    ASSERT_TRUE(image.thumbnail_error);
    EXPECT_EQ(image.thumbnail_error->code, core::ErrorCode::corrupt_file);
    EXPECT_EQ(field(image, "thumbnail_error_code"), "corrupt_file");
    EXPECT_EQ(field(image, "thumbnail_error"), image.thumbnail_error->message);
    EXPECT_FALSE(image.text_error);
}

TEST(RegistryAnalyse, OutOfMemoryInAStepIsThatStepsMemoryLimit) {
    const std::string type = std::string(k_test_type) + "-hungry";
    extractors::registry().add(extractors::Extractor{
        .name = "test_hungry",
        .accepts = [type](const std::string& mime) { return mime == type; },
        .extract = [](std::span<const unsigned char>, const std::string&,
                      const extractors::TextOptions&) -> extractors::TextResult { throw std::bad_alloc(); },
        .enabled = {},
    });
    const worker::PipelineResult r = analyse_bytes("anything", type);
    ASSERT_TRUE(r.text_error);
    EXPECT_EQ(r.text_error->code, core::ErrorCode::memory_limit);
    EXPECT_EQ(field(r, "extraction_error_code"), "memory_limit");
    EXPECT_TRUE(r.parser_stopped());
}

namespace {

// The 288 px thumbnail of a result, decoded, with the mean of each band.
std::vector<double> thumbnail_means(const worker::PipelineResult& r) {
    for (const auto& out : r.outputs) {
        if (out.key.find("288") == std::string::npos) continue;
        const vips::VImage image = vips::VImage::new_from_buffer(out.bytes.data(), out.bytes.size(), "");
        std::vector<double> means;
        for (int band = 0; band < 3; ++band) means.push_back(image.extract_band(band).avg());
        return means;
    }
    return {};
}

} // namespace

// A page without a text layer is drawn once for both steps: OCR draws page 1 in colour and
// the thumbnailer takes that drawing (issue 18); its thumbnail matches a drawn-here one.
TEST(FirstPageShare, AnOcrdFirstPageIsDrawnOnceForBothSteps) {
    thumbnails::init();
    const std::string slide = testsupport::stencil_slide_pdf(1920, 1080); // blue, no text layer
    const std::uint64_t before = extractors::first_pages_taken();
    const worker::PipelineResult both = analyse_bytes(slide, "application/pdf");
    EXPECT_EQ(extractors::first_pages_taken(), before + 1) << "the thumbnailer took OCR's drawing";
    EXPECT_EQ(field(both, "extraction_method"), "ocr");
    EXPECT_EQ(field(both, "thumbnail_status"), "done") << field(both, "thumbnail_error").value_or("");
    const worker::PipelineResult alone = analyse_bytes(slide, "application/pdf", {}, true, false);
    EXPECT_EQ(extractors::first_pages_taken(), before + 1) << "thumbnails alone draw the page themselves";
    const std::vector<double> shared = thumbnail_means(both), drawn = thumbnail_means(alone);
    ASSERT_EQ(shared.size(), 3U);
    ASSERT_EQ(drawn.size(), 3U);
    EXPECT_GT(shared[2], shared[0] + 30) << "blue, in colour: not OCR's grey";
    for (int band = 0; band < 3; ++band) EXPECT_NEAR(shared[band], drawn[band], 6.0) << "band " << band;
}

// Pages with a text layer are not OCR'd: nothing is drawn for the thumbnailer, which draws
// page 1 itself; a drawing never outlives its job.
TEST(FirstPageShare, ATextLayerPdfIsDrawnByTheThumbnailerAlone) {
    thumbnails::init();
    const std::uint64_t before = extractors::first_pages_taken();
    const worker::PipelineResult r =
        analyse_bytes(testsupport::text_pdf({"A page with a text layer."}), "application/pdf");
    EXPECT_EQ(field(r, "extraction_method"), "text_layer");
    EXPECT_EQ(field(r, "thumbnail_status"), "done");
    const worker::PipelineResult text_only =
        analyse_bytes(testsupport::stencil_slide_pdf(960, 540), "application/pdf", {}, false, true);
    EXPECT_EQ(field(text_only, "extraction_method"), "ocr");
    EXPECT_EQ(extractors::first_pages_taken(), before);
    EXPECT_FALSE(extractors::take_first_page()) << "no drawing left behind by a job";
}

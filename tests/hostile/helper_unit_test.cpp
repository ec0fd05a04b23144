// The worker's side of the helper protocol without a helper: merging per-step results,
// failures of unfinished steps (as fields and as typed values), the checks a helper's
// outputs must pass, and how a helper's death is classified.
#include "core/layout.hpp"
#include "worker/helper/death.hpp"
#include "worker/helper/helper_result.hpp"
#include "worker/helper/process/helper.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <algorithm>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

using core::ErrorCode;
using worker::JobSpec;
using worker::PipelineOptions;
using worker::PipelineResult;
using worker::Step;

std::string field(const PipelineResult& r, const std::string& k) {
    const auto* v = worker::find_field(r, k);
    return v ? *v : "<absent>";
}

bool clears(const PipelineResult& r, const std::string& k) {
    return std::find(r.clear.begin(), r.clear.end(), k) != r.clear.end();
}

std::string webp(std::size_t payload) {
    std::string b = "RIFF";
    const auto riff = static_cast<std::uint32_t>(payload + 4);
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<char>((riff >> (8 * i)) & 0xFF));
    b += "WEBP";
    b += std::string(payload, 'x');
    return b;
}

JobSpec spec() {
    JobSpec s;
    s.file_id = "f1";
    return s;
}

PipelineResult thumbs_part() {
    PipelineResult r;
    r.fields = {{"content_hash", "h"},
                {"size_bytes", "10"},
                {"content_type", "application/pdf"},
                {"thumbnail_status", "done"},
                {"thumbnail_72_key", "thumbnails/f1/72.webp"}};
    r.outputs = {{"thumbnails/f1/72.webp", webp(20)}};
    return r;
}

// A thumbnails part as analyse() makes it when the image is too big.
PipelineResult failed_thumbs_part() {
    PipelineResult r;
    r.fields = {{"content_hash", "h"}, {"size_bytes", "10"}, {"content_type", "image/png"}};
    worker::fail_step(r, Step::thumbnails, {ErrorCode::too_many_pixels, "The image has too many pixels."});
    return r;
}

TEST(HelperResults, UnfinishedStepGetsTheStopCode) {
    auto r = worker::combine_results({thumbs_part()}, spec(), "h", 10, "application/pdf",
                                     core::Failure{ErrorCode::crashed, "The parser process died with SIGSEGV."});
    EXPECT_EQ(field(r, "thumbnail_status"), "done");
    EXPECT_EQ(field(r, "extraction_status"), "failed");
    EXPECT_EQ(field(r, "extraction_error_code"), "crashed");
    EXPECT_EQ(field(r, "error_code"), "crashed");
    EXPECT_EQ(field(r, "error"), "The parser process died with SIGSEGV.");
    EXPECT_EQ(field(r, "content_type"), "application/pdf");
    EXPECT_TRUE(r.step_failed);
    EXPECT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(clears(r, "extracted_text"));
    EXPECT_FALSE(clears(r, "thumbnail_72_key"));
    // The same failure, typed.
    ASSERT_TRUE(r.text_error);
    EXPECT_EQ(r.text_error->code, ErrorCode::crashed);
    EXPECT_EQ(r.text_error->message, "The parser process died with SIGSEGV.");
    EXPECT_FALSE(r.thumbnail_error);
    EXPECT_TRUE(r.parser_stopped());
    EXPECT_EQ(worker::check_step_failures(r), "");
}

TEST(HelperResults, DeathBeforeAnyResultFailsEveryStep) {
    auto r = worker::combine_results({}, spec(), "h", 10, "", core::Failure{ErrorCode::timeout, "Out of time."});
    EXPECT_EQ(field(r, "extraction_error_code"), "timeout");
    EXPECT_EQ(field(r, "thumbnail_error_code"), "timeout");
    EXPECT_EQ(field(r, "content_type"), "<absent>");
    EXPECT_EQ(field(r, "content_hash"), "h");
    ASSERT_TRUE(r.text_error && r.thumbnail_error);
    EXPECT_EQ(r.text_error->code, ErrorCode::timeout);
    EXPECT_EQ(r.thumbnail_error->code, ErrorCode::timeout);
    EXPECT_EQ(r.thumbnail_error->message, "Out of time.");
    EXPECT_TRUE(r.parser_stopped());
}

TEST(HelperResults, StopOnlyTouchesTheRequestedSteps) {
    JobSpec thumbs_only = spec();
    thumbs_only.step_text = false;
    auto r = worker::combine_results({}, thumbs_only, "h", 10, "", core::Failure{ErrorCode::memory_limit, "Big."});
    EXPECT_FALSE(r.text_error);
    ASSERT_TRUE(r.thumbnail_error);
    EXPECT_EQ(r.thumbnail_error->code, ErrorCode::memory_limit);
    EXPECT_EQ(field(r, "extraction_status"), "<absent>");
    EXPECT_EQ(field(r, "error_code"), "memory_limit");
}

TEST(HelperResults, AHelpersOwnStepFailureStaysTypedAndIsNotAStop) {
    auto r = worker::combine_results({failed_thumbs_part()}, spec(), "h", 10, "image/png",
                                     core::Failure{ErrorCode::timeout, "Out of time."});
    ASSERT_TRUE(r.thumbnail_error);
    EXPECT_EQ(r.thumbnail_error->code, ErrorCode::too_many_pixels);
    EXPECT_EQ(field(r, "thumbnail_error_code"), "too_many_pixels");
    ASSERT_TRUE(r.text_error);
    EXPECT_EQ(r.text_error->code, ErrorCode::timeout);
    EXPECT_EQ(field(r, "error_code"), "timeout"); // the text step's failure comes first
    EXPECT_EQ(worker::check_step_failures(r), "");

    auto finished = worker::combine_results({failed_thumbs_part()}, spec(), "h", 10, "image/png", std::nullopt);
    EXPECT_FALSE(finished.text_error);
    EXPECT_FALSE(finished.parser_stopped()); // the bytes' verdict: reusable
    EXPECT_EQ(field(finished, "error_code"), "too_many_pixels");
    EXPECT_EQ(field(finished, "error"), "The image has too many pixels.");
}

TEST(HelperResults, CompleteRunClearsOldErrorsAndOrdersTextFirst) {
    PipelineResult text;
    text.fields = {
        {"content_hash", "h"}, {"size_bytes", "10"}, {"extraction_status", "done"}, {"extracted_text", "hi"}};
    auto r = worker::combine_results({thumbs_part(), text}, spec(), "h", 10, "application/pdf", std::nullopt);
    EXPECT_FALSE(r.step_failed);
    EXPECT_FALSE(r.text_error || r.thumbnail_error || r.parser_stopped());
    EXPECT_TRUE(clears(r, "error_code"));
    EXPECT_TRUE(clears(r, "deduplicated_from"));
    std::vector<std::string> keys;
    for (const auto& kv : r.fields) keys.push_back(kv.first);
    auto pos = [&](const std::string& k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
    EXPECT_LT(pos("extraction_status"), pos("thumbnail_status"));
}

TEST(HelperResults, ValidationRefusesWhatAHelperMustNotSay) {
    PipelineOptions o;
    EXPECT_EQ(worker::validate_result(thumbs_part(), spec(), "h", 10, o), "");

    auto bad = thumbs_part();
    bad.outputs[0].bytes = "<html>not a webp</html>";
    EXPECT_NE(worker::validate_result(bad, spec(), "h", 10, o), "");

    bad = thumbs_part();
    bad.outputs[0].key = "../../etc/passwd";
    EXPECT_NE(worker::validate_result(bad, spec(), "h", 10, o), "");

    bad = thumbs_part();
    bad.outputs.push_back({"thumbnails/other/72.webp", webp(10)});
    EXPECT_NE(worker::validate_result(bad, spec(), "h", 10, o), "");

    bad = thumbs_part();
    bad.fields.emplace_back("status", "done"); // not the helper's to set
    EXPECT_NE(worker::validate_result(bad, spec(), "h", 10, o), "");

    bad = thumbs_part();
    bad.fields.emplace_back("extracted_text", std::string("\xff\xfe", 2));
    EXPECT_NE(worker::validate_result(bad, spec(), "h", 10, o), "");

    bad = thumbs_part();
    bad.fields[0].second = "another-hash";
    EXPECT_NE(worker::validate_result(bad, spec(), "h", 10, o), "");

    PipelineResult text;
    text.fields = {{"extraction_status", "done"}, {"extracted_text_key", core::text_key("f1")}};
    text.outputs = {{core::text_key("f1"), "valid text"}};
    EXPECT_EQ(worker::validate_result(text, spec(), "h", 10, o), "");
    text.outputs[0].bytes = std::string("\xc0\x80", 2); // overlong
    EXPECT_NE(worker::validate_result(text, spec(), "h", 10, o), "");
}

TEST(HelperResults, EveryThumbnailSizeIsAnExpectedOutput) {
    for (int size : core::k_thumbnail_sizes) {
        PipelineResult r;
        r.fields = {{"thumbnail_status", "done"}, {core::thumbnail_field(size), core::thumbnail_key("f1", size)}};
        r.outputs = {{core::thumbnail_key("f1", size), webp(20)}};
        EXPECT_EQ(worker::validate_result(r, spec(), "h", 10, PipelineOptions{}), "") << size;
    }
    PipelineResult odd;
    odd.fields = {{"thumbnail_status", "done"}, {"thumbnail_72_key", core::thumbnail_key("f1", 73)}};
    odd.outputs = {{core::thumbnail_key("f1", 73), webp(20)}};
    EXPECT_NE(worker::validate_result(odd, spec(), "h", 10, PipelineOptions{}), "");
}

TEST(HelperResults, ValidationRefusesTypedFailuresThatDisagreeWithTheFields) {
    const PipelineOptions o;
    EXPECT_EQ(worker::validate_result(failed_thumbs_part(), spec(), "h", 10, o), "");

    auto untyped = failed_thumbs_part();
    untyped.thumbnail_error.reset();
    EXPECT_NE(worker::validate_result(untyped, spec(), "h", 10, o), "");

    auto other_code = failed_thumbs_part();
    other_code.thumbnail_error->code = ErrorCode::corrupt_file;
    EXPECT_NE(worker::validate_result(other_code, spec(), "h", 10, o), "");

    auto other_message = failed_thumbs_part();
    other_message.thumbnail_error->message = "Something else.";
    EXPECT_NE(worker::validate_result(other_message, spec(), "h", 10, o), "");

    auto typed_only = thumbs_part();
    typed_only.text_error = core::Failure{ErrorCode::crashed, "x"};
    EXPECT_NE(worker::validate_result(typed_only, spec(), "h", 10, o), "");

    auto unknown_code = failed_thumbs_part();
    for (auto& [k, v] : unknown_code.fields) {
        if (k == "thumbnail_error_code") v = "exploded";
    }
    EXPECT_NE(worker::validate_result(unknown_code, spec(), "h", 10, o), "");

    auto file_level = failed_thumbs_part();
    for (auto& [k, v] : file_level.fields) {
        if (k == "thumbnail_error_code") v = "hash_mismatch";
    }
    file_level.thumbnail_error->code = ErrorCode::hash_mismatch;
    EXPECT_NE(worker::validate_result(file_level, spec(), "h", 10, o), "");
}

TEST(PipelineResults, FileLevelAndUnparsedResultsHaveNoStepFailure) {
    const auto failed = worker::file_failure(ErrorCode::storage_missing, "No file.");
    EXPECT_FALSE(failed.text_error || failed.thumbnail_error || failed.parser_stopped());
    EXPECT_EQ(worker::check_step_failures(failed), "");
    const auto unparsed = worker::unparsed_result(3, "h", spec(), "application/zip");
    EXPECT_FALSE(unparsed.text_error || unparsed.thumbnail_error || unparsed.step_failed);
    EXPECT_EQ(worker::check_step_failures(unparsed), "");
    EXPECT_EQ(field(unparsed, "extraction_status"), "not_applicable");
}

TEST(PipelineResults, FailStepWritesFieldsAndTypedValueTogether) {
    PipelineResult r;
    worker::fail_step(r, Step::text, {ErrorCode::encrypted_pdf, "The PDF is encrypted."});
    EXPECT_EQ(field(r, "extraction_status"), "failed");
    EXPECT_EQ(field(r, "extraction_error_code"), "encrypted_pdf");
    EXPECT_EQ(field(r, "extraction_error"), "The PDF is encrypted.");
    ASSERT_TRUE(r.text_error);
    EXPECT_EQ(r.text_error->code, ErrorCode::encrypted_pdf);
    EXPECT_TRUE(r.step_failed);
    EXPECT_FALSE(r.parser_stopped());
    EXPECT_EQ(worker::check_step_failures(r), "");
}

TEST(PipelineResults, ThumbnailFieldsFollowTheLayoutSizes) {
    const auto& fields = worker::thumbnail_fields();
    for (int size : core::k_thumbnail_sizes) {
        EXPECT_EQ(std::count(fields.begin(), fields.end(), core::thumbnail_field(size)), 1) << size;
    }
    const auto keys = std::count_if(fields.begin(), fields.end(),
                                    [](const std::string& f) { return core::thumbnail_size_of_field(f).has_value(); });
    EXPECT_EQ(keys, static_cast<long>(core::k_thumbnail_sizes.size()));
    EXPECT_EQ(fields.front(), worker::status_field(Step::thumbnails));
    EXPECT_EQ(worker::text_fields().front(), worker::status_field(Step::text));
}

worker::HelperEnding signalled(int sig, std::uint64_t peak) {
    worker::HelperEnding e;
    e.signal = sig;
    e.peak_bytes = peak;
    return e;
}

TEST(HelperDeath, EachEndingHasItsCode) {
    const std::uint64_t limit = 1000 << 20;
    auto d = worker::classify_death(signalled(SIGXCPU, 0), limit, 744);
    EXPECT_EQ(d.failure.code, ErrorCode::timeout);
    EXPECT_FALSE(d.counted);
    d = worker::classify_death(signalled(SIGKILL, limit * 9 / 10), limit, 744);
    EXPECT_EQ(d.failure.code, ErrorCode::memory_limit);
    EXPECT_EQ(d.failure.message, "The parser process ran out of its memory budget of 744 MB.");
    EXPECT_TRUE(d.counted);
    d = worker::classify_death(signalled(SIGSEGV, limit / 10), limit, 744);
    EXPECT_EQ(d.failure.code, ErrorCode::crashed);
    EXPECT_EQ(d.failure.message, "The parser process died with SIGSEGV.");
    d = worker::classify_death(signalled(SIGKILL, limit), 0, 744); // no limit: never memory
    EXPECT_EQ(d.failure.code, ErrorCode::crashed);
    worker::HelperEnding exited;
    exited.exit_code = worker::k_helper_exit_out_of_memory;
    EXPECT_EQ(worker::classify_death(exited, limit, 744).failure.code, ErrorCode::memory_limit);
    exited.exit_code = 3;
    EXPECT_EQ(worker::classify_death(exited, limit, 744).failure.message,
              "The parser process exited unexpectedly (status 3).");
    EXPECT_EQ(worker::classify_death({}, limit, 744).failure.message,
              "The parser process exited unexpectedly (status -1).");
}

TEST(HelperDeath, TheWorkersReasonsComeBeforeTheSignal) {
    auto ending = signalled(SIGKILL, 1ULL << 40);
    ending.killed_for_time = true;
    auto d = worker::classify_death(ending, 1 << 20, 1);
    EXPECT_EQ(d.failure.code, ErrorCode::timeout);
    EXPECT_FALSE(d.counted);
    ending.invalid = "a bad content type";
    d = worker::classify_death(ending, 1 << 20, 1);
    EXPECT_EQ(d.failure.code, ErrorCode::crashed);
    EXPECT_EQ(d.failure.message, "The parser process returned an invalid result (a bad content type).");
    EXPECT_TRUE(d.counted);
}

TEST(HelperDeath, ReapingARealProcessSaysHowItEnded) {
    const pid_t exits = ::fork();
    ASSERT_GE(exits, 0);
    if (exits == 0) ::_exit(3);
    auto ending = worker::reap_helper(exits);
    EXPECT_EQ(ending.exit_code, 3);
    EXPECT_FALSE(ending.signal);

    const pid_t dies = ::fork();
    ASSERT_GE(dies, 0);
    if (dies == 0) {
        const rlimit no_core{0, 0};
        ::setrlimit(RLIMIT_CORE, &no_core);
        ::raise(SIGSEGV);
        ::_exit(0);
    }
    ending = worker::reap_helper(dies);
    EXPECT_EQ(ending.signal, SIGSEGV);

    // One that keeps running is killed after the grace.
    const pid_t lingers = ::fork();
    ASSERT_GE(lingers, 0);
    if (lingers == 0) {
        for (;;) ::pause();
    }
    ending = worker::reap_helper(lingers);
    EXPECT_EQ(ending.signal, SIGKILL);
}

} // namespace

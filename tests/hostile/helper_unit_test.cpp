// The worker's side of the helper protocol without processes: merging per-step results,
// failures of unfinished steps, and the checks a helper's outputs must pass.
#include "worker/helper/channel.hpp"
#include "worker/helper/pool.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using worker::JobSpec;
using worker::PipelineOptions;
using worker::PipelineResult;

std::string field(const PipelineResult& r, const std::string& k) {
    for (const auto& [key, v] : r.fields) {
        if (key == k) return v;
    }
    return "<absent>";
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

TEST(HelperResults, UnfinishedStepGetsTheStopCode) {
    auto r = worker::combine_results({thumbs_part()}, spec(), "h", 10, "application/pdf",
                                     core::Failure{core::ErrorCode::crashed, "The parser process died with SIGSEGV."});
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
}

TEST(HelperResults, DeathBeforeAnyResultFailsEveryStep) {
    auto r = worker::combine_results({}, spec(), "h", 10, "", core::Failure{core::ErrorCode::timeout, "Out of time."});
    EXPECT_EQ(field(r, "extraction_error_code"), "timeout");
    EXPECT_EQ(field(r, "thumbnail_error_code"), "timeout");
    EXPECT_EQ(field(r, "content_type"), "<absent>");
    EXPECT_EQ(field(r, "content_hash"), "h");
}

TEST(HelperResults, CompleteRunClearsOldErrorsAndOrdersTextFirst) {
    PipelineResult text;
    text.fields = {
        {"content_hash", "h"}, {"size_bytes", "10"}, {"extraction_status", "done"}, {"extracted_text", "hi"}};
    auto r = worker::combine_results({thumbs_part(), text}, spec(), "h", 10, "application/pdf", std::nullopt);
    EXPECT_FALSE(r.step_failed);
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
    text.fields = {{"extraction_status", "done"}, {"extracted_text_key", "text/f1.txt"}};
    text.outputs = {{"text/f1.txt", "valid text"}};
    EXPECT_EQ(worker::validate_result(text, spec(), "h", 10, o), "");
    text.outputs[0].bytes = std::string("\xc0\x80", 2); // overlong
    EXPECT_NE(worker::validate_result(text, spec(), "h", 10, o), "");
}

TEST(HelperChannel, MessagesAndDescriptorsRoundTrip) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    int pipefd[2];
    ASSERT_EQ(::pipe(pipefd), 0);
    PipelineResult r = thumbs_part();
    std::string blob;
    auto j = worker::helper_channel::to_json(r, blob);
    ASSERT_TRUE(worker::helper_channel::send(sv[0], worker::helper_channel::Type::result, j, blob, pipefd[0]));
    auto m = worker::helper_channel::receive_blocking(sv[1]);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->type, worker::helper_channel::Type::result);
    ASSERT_GE(m->fd, 0);
    ASSERT_EQ(::write(pipefd[1], "z", 1), 1);
    char c = 0;
    EXPECT_EQ(::read(m->fd, &c, 1), 1);
    EXPECT_EQ(c, 'z');
    auto back = worker::helper_channel::result_from_json(m->json, m->blob);
    EXPECT_EQ(back.fields, r.fields);
    ASSERT_EQ(back.outputs.size(), 1u);
    EXPECT_EQ(back.outputs[0].bytes, r.outputs[0].bytes);
    // A frame with a lying header is refused by the incremental reader.
    ASSERT_EQ(::write(sv[0], "garbage-garbage-garbage", 23), 23);
    ::fcntl(sv[1], F_SETFL, O_NONBLOCK);
    worker::helper_channel::Reader reader;
    reader.feed(sv[1]);
    EXPECT_FALSE(reader.next());
    EXPECT_EQ(reader.feed(sv[1]), worker::helper_channel::Reader::Status::broken);
    for (int fd : {sv[0], sv[1], pipefd[0], pipefd[1], m->fd}) ::close(fd);
}

} // namespace

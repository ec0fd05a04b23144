// What crosses the worker <-> helper socket: frames with descriptors, results with their
// typed step failures, and the options value, every row of INGESTD_OPTION_FIELDS.
#include "core/spool.hpp"
#include "worker/helper/channel.hpp"
#include "worker/helper/text_output.hpp"

#include <type_traits>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

namespace ch = worker::helper_channel;
using core::ErrorCode;
using worker::PipelineOptions;
using worker::PipelineResult;

struct SocketPair {
    core::Fd a, b;
    SocketPair() {
        int sv[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
        a.reset(sv[0]);
        b.reset(sv[1]);
    }
};

struct Pipe {
    core::Fd read, write;
    Pipe() {
        int p[2];
        EXPECT_EQ(::pipe2(p, O_CLOEXEC | O_NONBLOCK), 0);
        read.reset(p[0]);
        write.reset(p[1]);
    }
};

PipelineResult result_with_failures() {
    PipelineResult r;
    r.fields = {{"content_hash", "h"}, {"size_bytes", "10"}};
    worker::fail_step(r, worker::Step::text, {ErrorCode::timeout, "Out of time."});
    worker::fail_step(r, worker::Step::thumbnails, {ErrorCode::too_many_pixels, "Too many pixels."});
    r.outputs = {{"thumbnails/f1/72.webp", "bytes"}};
    return r;
}

// A spilled text as a helper hands it over: an unlinked file holding `text`.
std::shared_ptr<core::Fd> text_file(const std::string& text) {
    auto fd = std::make_shared<core::Fd>(core::open_spool_file());
    EXPECT_TRUE(*fd);
    EXPECT_TRUE(core::pwrite_all(fd->get(), text.data(), text.size(), 0));
    return fd;
}

std::string file_text(int fd) {
    std::string out(1 << 22, '\0');
    const ssize_t n = ::pread(fd, out.data(), out.size(), 0);
    out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return out;
}

// A long text crosses the socket as a descriptor, not in the message (whose blob is capped),
// and the worker takes it only as a checked copy of its own.
TEST(HelperChannel, ALongTextTravelsAsADescriptorAndIsAdoptedAsACheckedCopy) {
    std::string text;
    while (text.size() < (3u << 20)) text += "caf\xC3\xA9 \xF0\x9F\x98\x80 "; // cut by the 1 MiB copies
    PipelineResult r;
    r.fields = {{"extracted_text_key", "text/f1.txt"}};
    r.outputs = {{"text/f1.txt", {}, text_file(text), text.size()}, {"thumbnails/f1/72.webp", "webp", nullptr, 0}};
    std::string blob;
    int fd = -1;
    const auto j = ch::to_json(r, blob, &fd);
    EXPECT_EQ(blob, "webp");
    EXPECT_EQ(fd, r.outputs[0].file->get());
    std::string unused;
    EXPECT_THROW(ch::to_json(r, unused), std::invalid_argument); // no way to send the file
    SocketPair s;
    ASSERT_TRUE(ch::send(s.a.get(), ch::Type::partial, {{"note", "before"}}));
    ASSERT_TRUE(ch::send(s.a.get(), ch::Type::result, j, blob, fd));
    ::fcntl(s.b.get(), F_SETFL, O_NONBLOCK);
    ch::Reader reader;
    EXPECT_EQ(reader.feed(s.b.get()), ch::Reader::Status::more);
    auto first = reader.next();
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->fd); // declares no file: takes no descriptor
    auto m = reader.next();
    ASSERT_TRUE(m);
    ASSERT_TRUE(m->fd);
    auto back = ch::result_from_json(m->json, m->blob, std::move(m->fd));
    ASSERT_EQ(back.outputs.size(), 2u);
    ASSERT_TRUE(back.outputs[0].file);
    EXPECT_EQ(back.outputs[0].size(), text.size());
    EXPECT_EQ(back.outputs[1].bytes, "webp");
    const int helpers_file = back.outputs[0].file->get();
    EXPECT_EQ(worker::adopt_output_files(back), "");
    EXPECT_NE(back.outputs[0].file->get(), helpers_file); // the worker's own copy
    EXPECT_EQ(file_text(back.outputs[0].file->get()), text);
    // Later writes by the helper do not reach the adopted copy.
    ASSERT_EQ(::pwrite(r.outputs[0].file->get(), "\xFF", 1, 0), 1);
    EXPECT_EQ(file_text(back.outputs[0].file->get()), text);
    // A declared file without its descriptor is malformed.
    EXPECT_THROW(ch::result_from_json(j, blob), std::runtime_error);
}

TEST(HelperChannel, AdoptionRefusesTextFilesThatAreNotWhatTheySay) {
    const std::string good = "fine text " + std::string(2 << 20, 'x');
    auto adopt = [](std::shared_ptr<core::Fd> file, std::uint64_t size) {
        PipelineResult r;
        r.outputs = {{"text/f1.txt", {}, std::move(file), size}};
        return worker::adopt_output_files(r);
    };
    EXPECT_EQ(adopt(text_file(good), good.size()), "");
    EXPECT_NE(adopt(text_file(good), good.size() + 1), ""); // another size than it said
    std::string bad = good;
    bad[(1 << 20) + 5] = '\xC0'; // an invalid byte in the second chunk
    EXPECT_EQ(adopt(text_file(bad), bad.size()), "a text output that is not UTF-8");
    std::string cut = good.substr(0, 100) + "\xE2\x82"; // ends inside a character
    EXPECT_EQ(adopt(text_file(cut), cut.size()), "a text output that is not UTF-8");
    Pipe p; // not a regular file
    EXPECT_NE(adopt(std::make_shared<core::Fd>(::dup(p.read.get())), 0), "");
}

TEST(HelperChannel, MessagesAndDescriptorsRoundTrip) {
    SocketPair s;
    Pipe p;
    PipelineResult r = result_with_failures();
    std::string blob;
    auto j = ch::to_json(r, blob);
    ASSERT_TRUE(ch::send(s.a.get(), ch::Type::result, j, blob, p.read.get()));
    auto m = ch::receive_blocking(s.b.get());
    ASSERT_TRUE(m);
    EXPECT_EQ(m->type, ch::Type::result);
    ASSERT_TRUE(m->fd);
    ASSERT_EQ(::write(p.write.get(), "z", 1), 1);
    char c = 0;
    EXPECT_EQ(::read(m->fd.get(), &c, 1), 1);
    EXPECT_EQ(c, 'z');
    auto back = ch::result_from_json(m->json, m->blob);
    EXPECT_EQ(back.fields, r.fields);
    ASSERT_EQ(back.outputs.size(), 1u);
    EXPECT_EQ(back.outputs[0].bytes, r.outputs[0].bytes);
    // A frame with a lying header is refused by the incremental reader.
    ASSERT_EQ(::write(s.a.get(), "garbage-garbage-garbage", 23), 23);
    ::fcntl(s.b.get(), F_SETFL, O_NONBLOCK);
    ch::Reader reader;
    reader.feed(s.b.get());
    EXPECT_FALSE(reader.next());
    EXPECT_EQ(reader.feed(s.b.get()), ch::Reader::Status::broken);
}

TEST(HelperChannel, ADescriptorOnABadFrameIsClosed) {
    SocketPair s;
    Pipe p;
    // A valid header whose JSON part is not an object: the frame is refused.
    ASSERT_TRUE(ch::send(s.a.get(), ch::Type::request, nlohmann::json::array({1}), {}, p.write.get()));
    p.write.reset();
    EXPECT_FALSE(ch::receive_blocking(s.b.get()));
    // No copy of the write end is left open anywhere: the read end sees the end of file
    // (a leaked copy would leave it empty but open, EAGAIN).
    char c;
    EXPECT_EQ(::read(p.read.get(), &c, 1), 0);
}

TEST(HelperWire, ResultsCarryTheirTypedStepFailures) {
    const PipelineResult sent = result_with_failures();
    std::string blob;
    const auto back = ch::result_from_json(ch::to_json(sent, blob), blob);
    ASSERT_TRUE(back.text_error && back.thumbnail_error);
    EXPECT_EQ(back.text_error->code, ErrorCode::timeout);
    EXPECT_EQ(back.text_error->message, "Out of time.");
    EXPECT_EQ(back.thumbnail_error->code, ErrorCode::too_many_pixels);
    EXPECT_EQ(back.thumbnail_error->message, "Too many pixels.");
    EXPECT_TRUE(back.parser_stopped());
    EXPECT_EQ(worker::check_step_failures(back), "");

    // A failure's detail (the library's words, for the worker's log) crosses too, capped.
    PipelineResult detailed = result_with_failures();
    detailed.text_error->detail = "heif: Invalid input: No 'hvcC' box";
    detailed.thumbnail_error->detail = std::string(5000, 'x');
    const auto detailed_back = ch::result_from_json(ch::to_json(detailed, blob), blob);
    EXPECT_EQ(detailed_back.text_error->detail, "heif: Invalid input: No 'hvcC' box");
    EXPECT_EQ(detailed_back.thumbnail_error->detail.size(), 512U);
    EXPECT_EQ(back.text_error->detail, "");

    PipelineResult clean;
    const auto clean_back = ch::result_from_json(ch::to_json(clean, blob), blob);
    EXPECT_FALSE(clean_back.text_error || clean_back.thumbnail_error);
}

TEST(HelperWire, AnUnknownStepErrorCodeFromAHelperIsInvalid) {
    std::string blob;
    auto j = ch::to_json(result_with_failures(), blob);
    j["text_error"]["code"] = "exploded";
    EXPECT_THROW(ch::result_from_json(j, blob), std::runtime_error);
    j = ch::to_json(result_with_failures(), blob);
    j.erase("thumbnail_error");
    EXPECT_THROW(ch::result_from_json(j, blob), std::runtime_error);
}

// A value of an option's type unlike `v`, so that a row the wire drops, swaps or resets
// shows. A row of a new type fails to compile here until the test knows the type.
template <class T> T other_value(const T& v) {
    if constexpr (std::is_same_v<T, core::OcrMode>) {
        return v == core::OcrMode::force ? core::OcrMode::off : core::OcrMode::force;
    } else if constexpr (std::is_same_v<T, std::string>) {
        return v + "+deu";
    } else {
        static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
        return static_cast<T>(v + 7);
    }
}

TEST(HelperWire, OptionsRoundTripEveryRow) {
    PipelineOptions sent;
    std::size_t rows = 0;
#define INGESTD_TEST_SET_OTHER(type, name, value)                                                                      \
    sent.name = other_value(static_cast<type>(value));                                                                 \
    EXPECT_NE(sent.name, static_cast<type>(value)) << #name;                                                           \
    ++rows;
    INGESTD_OPTION_FIELDS(INGESTD_TEST_SET_OTHER)
#undef INGESTD_TEST_SET_OTHER
    const auto j = ch::to_json(sent);
    EXPECT_EQ(j.size(), rows); // one member per row, nothing else
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(7);
    const PipelineOptions back = ch::options_from_json(j, deadline);
#define INGESTD_TEST_SAME(type, name, value) EXPECT_EQ(back.name, sent.name) << #name;
    INGESTD_OPTION_FIELDS(INGESTD_TEST_SAME)
#undef INGESTD_TEST_SAME
    EXPECT_EQ(back.deadline, deadline);
}

TEST(HelperWire, OptionsWithAnUnknownOcrModeOrAMissingRowAreRefused) {
    auto j = ch::to_json(PipelineOptions{});
    j["ocr_mode"] = "sometimes";
    EXPECT_THROW(ch::options_from_json(j, {}), std::runtime_error);
    j = ch::to_json(PipelineOptions{});
    j.erase("max_pixels");
    EXPECT_ANY_THROW(ch::options_from_json(j, {}));
}

} // namespace

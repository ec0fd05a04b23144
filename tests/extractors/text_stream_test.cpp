// Text decoded and kept in pieces (issue 18): the streamed decoder gives what the whole-text
// decoder gives whatever the chunking, the sink keeps the inline prefix in memory and spills
// the whole text to a file, and the streamed plain-text extractor reads a descriptor.
#include "core/spool.hpp"
#include "extractors/plain_text.hpp"
#include "extractors/text_clean.hpp"
#include "extractors/text_sink.hpp"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using extractors::TextDecoder;

// Every encoding and repair the decoder knows, with characters that chunks can cut.
std::vector<std::string> samples() {
    const std::string utf8 = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 bad\xC3 \xE0\x80 x\r\ny\rz\x01\n";
    std::string u16le("\xFF\xFE", 2), u16be("\xFE\xFF", 2), u32le("\xFF\xFE\0\0", 4);
    for (char32_t cp : {U'h', U'\u00e9', U'\r', U'\n', char32_t(0x1F600), U'z'}) {
        if (cp > 0xFFFF) {
            const char32_t v = cp - 0x10000, hi = 0xD800 + (v >> 10), lo = 0xDC00 + (v & 0x3FF);
            for (char32_t u : {hi, lo}) {
                u16le += {static_cast<char>(u & 0xFF), static_cast<char>(u >> 8)};
                u16be += {static_cast<char>(u >> 8), static_cast<char>(u & 0xFF)};
            }
        } else {
            u16le += {static_cast<char>(cp & 0xFF), static_cast<char>(cp >> 8)};
            u16be += {static_cast<char>(cp >> 8), static_cast<char>(cp & 0xFF)};
        }
        for (int k = 0; k < 4; ++k) u32le += static_cast<char>((cp >> (8 * k)) & 0xFF);
    }
    u16le += std::string("\x3D\xD8x", 3); // a lone high surrogate, then an odd byte
    return {utf8, "\xEF\xBB\xBF" + utf8, u16le, u16be, u32le + "\x01", "\xFF", "ab", ""};
}

std::string decode_in_chunks(const std::string& in, std::mt19937& rng) {
    TextDecoder decoder;
    std::string out;
    for (std::size_t at = 0; at < in.size();) {
        const std::size_t n = std::min<std::size_t>(in.size() - at, 1 + rng() % 5);
        decoder.feed(std::string_view(in).substr(at, n), out);
        at += n;
    }
    decoder.finish(out);
    return out;
}

TEST(TextDecoder, AnyChunkingGivesWhatTheWholeTextGives) {
    std::mt19937 rng(18);
    for (const auto& in : samples()) {
        const std::string whole = extractors::decode_text(in);
        for (int round = 0; round < 200; ++round) {
            ASSERT_EQ(decode_in_chunks(in, rng), whole) << "input of " << in.size() << " bytes, round " << round;
        }
    }
    // The cases above, as the decoder must see them.
    EXPECT_EQ(extractors::decode_text(samples()[0]), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 bad\xEF\xBF\xBD "
                                                     "\xEF\xBF\xBD\xEF\xBF\xBD x\ny\nz\n");
}

std::string read_fd(int fd) {
    std::string out;
    char buf[4096];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n <= 0) return out;
        out.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
}

TEST(TextSink, KeepsShortTextInMemoryAndSpillsLongTextWhole) {
    extractors::TextSink small(16);
    small.append("short");
    extractors::TextResult r;
    std::move(small).finish_into(r);
    EXPECT_EQ(r.text, "short");
    EXPECT_FALSE(r.spill);

    extractors::TextSink big(8);
    const std::string text = "abcdef\xC3\xA9gh" + std::string(5000, 'x'); // é spans bytes 6-7
    big.append(text.substr(0, 3));
    big.append(text.substr(3, 5)); // 8 bytes: still inline
    big.append(text.substr(8));
    EXPECT_EQ(big.size(), text.size());
    std::move(big).finish_into(r);
    ASSERT_TRUE(r.spill);
    EXPECT_EQ(r.spill_bytes, text.size());
    EXPECT_EQ(read_fd(r.spill->get()), text);
    EXPECT_EQ(r.text, "abcdef\xC3\xA9"); // the inline prefix, not cutting the é

    extractors::TextResult long_text;
    long_text.text = text;
    extractors::spill_long_text(long_text, 7);
    ASSERT_TRUE(long_text.spill);
    EXPECT_EQ(long_text.text, "abcdef"); // 7 bytes would cut the é
    EXPECT_EQ(read_fd(long_text.spill->get()), text);
}

TEST(PlainTextFile, StreamedTextEqualsTheWholeTextsAndSpillsPastTheInlineLimit) {
    // 3 MiB of text whose characters straddle the extractor's 1 MiB reads.
    std::string text;
    while (text.size() < (3u << 20)) text += "line \xE2\x82\xAC \xF0\x9F\x98\x80 caf\xC3\xA9\r\n";
    core::Fd fd = core::open_spool_file();
    ASSERT_TRUE(fd);
    ASSERT_TRUE(core::pwrite_all(fd.get(), text.data(), text.size(), 0));
    const auto whole =
        extractors::extract_plain_text(std::span(reinterpret_cast<const unsigned char*>(text.data()), text.size()));
    extractors::TextOptions options;
    options.max_text_bytes = 1000;
    const auto streamed = extractors::extract_plain_text_file(fd.get(), text.size(), options);
    EXPECT_FALSE(streamed.error);
    EXPECT_EQ(streamed.method, "plain");
    ASSERT_TRUE(streamed.spill);
    EXPECT_EQ(streamed.spill_bytes, whole.text.size());
    EXPECT_EQ(read_fd(streamed.spill->get()), whole.text);
    EXPECT_EQ(streamed.text, whole.text.substr(0, extractors::utf8_prefix_length(whole.text, 1000)));

    options.max_text_bytes = 16u << 20; // fits inline: no spill
    const auto inline_only = extractors::extract_plain_text_file(fd.get(), text.size(), options);
    EXPECT_FALSE(inline_only.spill);
    EXPECT_EQ(inline_only.text, whole.text);

    options.deadline = std::chrono::steady_clock::now(); // out of time: a timeout, not a hang
    EXPECT_EQ(extractors::extract_plain_text_file(fd.get(), text.size(), options).error->code,
              core::ErrorCode::timeout);
}

} // namespace

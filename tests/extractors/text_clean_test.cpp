#include "extractors/plain_text.hpp"
#include "extractors/text_clean.hpp"

#include <gtest/gtest.h>

namespace {

using extractors::clean_text;
using extractors::decode_text;

TEST(CleanText, KeepsValidUtf8AndAllowedControls) {
    EXPECT_EQ(clean_text("héllo\twörld\n\fnext"), "héllo\twörld\n\fnext");
    EXPECT_EQ(clean_text("emoji 😀 ok"), "emoji 😀 ok");
}

TEST(CleanText, RemovesControlsAndNormalisesLineEnds) {
    EXPECT_EQ(clean_text(std::string("a\0b\x01"
                                     "c\x7f"
                                     "d",
                                     7)),
              "abcd");
    EXPECT_EQ(clean_text("one\r\ntwo\rthree\n"), "one\ntwo\nthree\n");
    EXPECT_EQ(clean_text("c1 \xc2\x85 gone"), "c1  gone");
}

TEST(CleanText, RepairsInvalidSequences) {
    EXPECT_EQ(clean_text("bad \xff byte"), "bad \xEF\xBF\xBD byte");
    EXPECT_EQ(clean_text("cut \xe2\x82"), "cut \xEF\xBF\xBD");
    EXPECT_EQ(clean_text("overlong \xc0\xaf"), "overlong \xEF\xBF\xBD\xEF\xBF\xBD");
    EXPECT_EQ(clean_text("surrogate \xed\xa0\x80!"), "surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD!");
}

TEST(DecodeText, ByteOrderMarks) {
    EXPECT_EQ(decode_text("\xEF\xBB\xBFutf8"), "utf8");
    EXPECT_EQ(decode_text(std::string("\xFF\xFEh\0i\0\n\0", 8)), "hi\n");
    EXPECT_EQ(decode_text(std::string("\xFE\xFF\0h\0\xE9", 6)), "hé");
    EXPECT_EQ(decode_text(std::string("\xFF\xFE\0\0h\0\0\0", 8)), "h");
    // A surrogate pair in UTF-16LE: U+1F600.
    EXPECT_EQ(decode_text(std::string("\xFF\xFE\x3D\xD8\x00\xDE", 6)), "😀");
}

TEST(Utf8Prefix, NeverCutsACharacter) {
    std::string s = "aé😀";
    EXPECT_EQ(extractors::utf8_prefix_length(s, 100), s.size());
    EXPECT_EQ(extractors::utf8_prefix_length(s, 1), 1u);
    EXPECT_EQ(extractors::utf8_prefix_length(s, 2), 1u);
    EXPECT_EQ(extractors::utf8_prefix_length(s, 3), 3u);
    EXPECT_EQ(extractors::utf8_prefix_length(s, 5), 3u);
    EXPECT_EQ(extractors::utf8_prefix_length(s, 7), 7u);
}

TEST(PlainText, MethodPlainAndRepaired) {
    std::string in = "caf\xe9 au lait\n";
    auto r = extractors::extract_plain_text(
        std::span<const unsigned char>(reinterpret_cast<const unsigned char*>(in.data()), in.size()));
    EXPECT_FALSE(r.error);
    EXPECT_EQ(r.method, "plain");
    EXPECT_EQ(r.text, "caf\xEF\xBF\xBD au lait\n");
}

} // namespace

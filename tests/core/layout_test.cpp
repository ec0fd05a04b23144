#include "core/layout.hpp"

#include <gtest/gtest.h>

namespace {

TEST(Layout, KeysFollowTheSpecLayout) {
    EXPECT_EQ(core::thumbnail_key("f1", 144), "thumbnails/f1/144.webp");
    EXPECT_EQ(core::text_key("a.b:c"), "text/a.b:c.txt");
    EXPECT_EQ(core::thumbnail_field(72), "thumbnail_72_key");
}

TEST(Layout, OnlyTheThreeSizesParse) {
    EXPECT_EQ(core::parse_thumbnail_size("72"), 72);
    EXPECT_EQ(core::parse_thumbnail_size("288"), 288);
    EXPECT_FALSE(core::parse_thumbnail_size("100"));
    EXPECT_FALSE(core::parse_thumbnail_size("072"));
    EXPECT_FALSE(core::parse_thumbnail_size(""));
    EXPECT_EQ(core::thumbnail_size_of_field("thumbnail_144_key"), 144);
    EXPECT_FALSE(core::thumbnail_size_of_field("thumbnail_status"));
    EXPECT_FALSE(core::thumbnail_size_of_field("thumbnail_100_key"));
}

TEST(Layout, OutputKeysAndTheirOwners) {
    EXPECT_EQ(core::output_keys("f1"), (std::vector<std::string>{"thumbnails/f1/72.webp", "thumbnails/f1/144.webp",
                                                                 "thumbnails/f1/288.webp", "text/f1.txt"}));
    bool temp = true;
    EXPECT_EQ(core::output_owner("thumbnails/f1/72.webp", &temp), "f1");
    EXPECT_FALSE(temp);
    EXPECT_EQ(core::output_owner("text/a.b:c.txt", &temp), "a.b:c");
    EXPECT_EQ(core::output_owner("thumbnails/f1/.288.webp.tmp-0123456789ab", &temp), "f1");
    EXPECT_TRUE(temp);
    EXPECT_EQ(core::output_owner("text/.f2.txt.tmp-0123456789ab", &temp), "f2");
    EXPECT_TRUE(temp);
    // Anything else is not ours to judge.
    for (const char* other :
         {"thumbnails/f1/100.webp", "thumbnails/f1/72.png", "thumbnails/README", "text/notes.md", "text/sub/f1.txt",
          "thumbnails/f1/x/72.webp", "uploads/ab/f1", "text/.txt", "thumbnails//72.webp", "text/.f2.txt.tmp-"}) {
        EXPECT_FALSE(core::output_owner(other)) << other;
    }
}

} // namespace

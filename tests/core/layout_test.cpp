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

} // namespace

#include "core/options.hpp"

#include <gtest/gtest.h>

namespace {

TEST(Options, OcrModesRoundTripThroughTheirSettingText) {
    for (auto mode : {core::OcrMode::automatic, core::OcrMode::force, core::OcrMode::off}) {
        EXPECT_EQ(core::parse_ocr_mode(core::to_string(mode)), mode);
    }
    EXPECT_EQ(core::to_string(core::OcrMode::automatic), "auto");
    EXPECT_FALSE(core::parse_ocr_mode("automatic"));
    EXPECT_FALSE(core::parse_ocr_mode(""));
}

TEST(Options, DefaultsAreTheSpecDefaults) {
    const core::Options o;
    EXPECT_EQ(o.ocr_mode, core::OcrMode::automatic);
    EXPECT_EQ(o.ocr_langs, "eng");
    EXPECT_EQ(o.max_pages, 2000);
    EXPECT_EQ(o.max_ocr_pages, 100);
    EXPECT_EQ(o.max_pixels, 100000000u);
    EXPECT_EQ(o.max_text_bytes, 1048576u);
    EXPECT_EQ(o.webp_quality, 80);
    EXPECT_EQ(o.deadline, std::chrono::steady_clock::time_point::max());
}

} // namespace

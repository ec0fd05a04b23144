#include "core/error_code.hpp"

#include <set>

#include <gtest/gtest.h>

namespace {

using core::ErrorCode;

TEST(ErrorCode, EveryCodeRoundTripsThroughItsSpecText) {
    std::set<std::string> seen;
    for (int i = 0; i <= static_cast<int>(ErrorCode::crashed); ++i) {
        const auto code = static_cast<ErrorCode>(i);
        const std::string text(core::to_string(code));
        EXPECT_TRUE(seen.insert(text).second) << "two codes share " << text;
        ASSERT_EQ(core::parse_error_code(text), code) << text;
    }
    EXPECT_EQ(seen.size(), 17u);
    EXPECT_EQ(core::to_string(ErrorCode::storage_missing), "storage_missing");
    EXPECT_EQ(core::to_string(ErrorCode::too_large_unpacked), "too_large_unpacked");
}

TEST(ErrorCode, UnknownTextIsNotACode) {
    EXPECT_FALSE(core::parse_error_code(""));
    EXPECT_FALSE(core::parse_error_code("Timeout"));
    EXPECT_FALSE(core::parse_error_code("timeout "));
}

TEST(ErrorCode, LevelsFollowTheSpecTable) {
    for (auto c :
         {ErrorCode::invalid_event, ErrorCode::storage_missing, ErrorCode::storage_error, ErrorCode::not_regular_file,
          ErrorCode::too_large, ErrorCode::size_mismatch, ErrorCode::hash_mismatch, ErrorCode::gave_up}) {
        EXPECT_TRUE(core::is_file_level(c)) << core::to_string(c);
    }
    for (auto c : {ErrorCode::corrupt_file, ErrorCode::unsupported_format, ErrorCode::encrypted_pdf,
                   ErrorCode::encrypted_document, ErrorCode::too_many_pixels, ErrorCode::too_large_unpacked,
                   ErrorCode::timeout, ErrorCode::memory_limit, ErrorCode::crashed}) {
        EXPECT_FALSE(core::is_file_level(c)) << core::to_string(c);
    }
}

TEST(ErrorCode, OnlyLimitsAndCrashesStopAParser) {
    std::set<ErrorCode> stopped;
    for (int i = 0; i <= static_cast<int>(ErrorCode::crashed); ++i) {
        if (core::stopped_parser(static_cast<ErrorCode>(i))) stopped.insert(static_cast<ErrorCode>(i));
    }
    EXPECT_EQ(stopped, (std::set<ErrorCode>{ErrorCode::timeout, ErrorCode::memory_limit, ErrorCode::crashed}));
}

} // namespace

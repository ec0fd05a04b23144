#include "core/backoff.hpp"

#include <gtest/gtest.h>

namespace {

using std::chrono::milliseconds;

TEST(Backoff, EachWaitIsInAQuarterToTheWholeOfItsDoublingLimit) {
    core::Backoff b(milliseconds(100), milliseconds(5000));
    const long long limits[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
    for (long long limit : limits) {
        const long long wait = b.next().count();
        EXPECT_GE(wait, limit / 4) << "limit " << limit;
        EXPECT_LE(wait, limit) << "limit " << limit;
    }
    EXPECT_EQ(b.attempts(), 8);
}

TEST(Backoff, ResetStartsAgainFromTheBase) {
    core::Backoff b(milliseconds(40), milliseconds(10000));
    for (int i = 0; i < 10; ++i) b.next();
    b.reset();
    const long long wait = b.next().count();
    EXPECT_GE(wait, 10);
    EXPECT_LE(wait, 40);
}

TEST(Backoff, JitterSpreadsWaits) {
    // 200 draws from [250, 1000]: far from all equal (a constant backoff would be).
    long long lo = 1 << 30, hi = 0;
    for (int i = 0; i < 200; ++i) {
        core::Backoff b(milliseconds(1000), milliseconds(1000));
        const long long w = b.next().count();
        lo = std::min(lo, w);
        hi = std::max(hi, w);
    }
    EXPECT_GT(hi - lo, 200);
}

} // namespace

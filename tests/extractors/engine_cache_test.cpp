#include "extractors/engine_cache.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

// Counts engines alive, so the test sees the cache destroy what it evicts.
struct FakeEngine {
    explicit FakeEngine(std::string l, int& alive) : langs(std::move(l)), live(alive) { ++live; }
    ~FakeEngine() { --live; }
    std::string langs;
    int& live;
};

TEST(OcrEngineCache, BoundedLeastRecentlyUsedGoesFirst) {
    int alive = 0, made = 0;
    extractors::EngineCache<FakeEngine> cache(3);
    auto get = [&](const std::string& langs) {
        return cache.get(langs, [&] {
            ++made;
            return std::make_unique<FakeEngine>(langs, alive);
        });
    };
    for (const char* langs : {"eng", "deu", "fra"}) EXPECT_EQ(get(langs)->langs, langs);
    EXPECT_EQ(made, 3);
    FakeEngine* eng = get("eng"); // reused, now the most recent
    EXPECT_EQ(made, 3);
    EXPECT_EQ(get("spa")->langs, "spa"); // evicts deu, the least recently used
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(alive, 3);
    EXPECT_FALSE(cache.contains("deu"));
    EXPECT_TRUE(cache.contains("eng") && cache.contains("fra") && cache.contains("spa"));
    EXPECT_EQ(get("eng"), eng); // the same engine, not a new one
    for (int i = 0; i < 50; ++i) get("x" + std::to_string(i));
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(alive, 3);
    EXPECT_EQ(made, 54);
}

TEST(OcrEngineCache, FailedOrThrowingMakeCachesNothing) {
    int alive = 0;
    extractors::EngineCache<FakeEngine> cache(2);
    EXPECT_EQ(cache.get("eng", [] { return std::unique_ptr<FakeEngine>(); }), nullptr);
    EXPECT_THROW(cache.get("xxx", []() -> std::unique_ptr<FakeEngine> { throw std::runtime_error("no data for xxx"); }),
                 std::runtime_error);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_NE(cache.get("eng", [&] { return std::make_unique<FakeEngine>("eng", alive); }), nullptr);
    EXPECT_EQ(alive, 1);
}

} // namespace

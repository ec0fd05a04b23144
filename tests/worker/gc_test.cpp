// `ingestd gc` end to end: real redis-server, real `ingestd worker` and `ingestd gc`
// processes, a real storage folder. Leftovers that no worker can be made to leave on cue
// (an old atomic-write temporary) are written directly.
#include "core/layout.hpp"
#include "tests/support/generated_file.hpp"
#include "tests/support/worker_fixture.hpp"

#include <future>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <sys/stat.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;

struct Gc : ::testing::Test {
    testsupport::WorkerFixture fx;

    bool exists(const std::string& key) { return std::filesystem::exists(fx.store() / key); }
    // Runs `ingestd gc ARGS`; returns the keys it printed, by kind ("output:thumbnails/x/72.webp").
    std::multiset<std::string> gc(const std::string& args, int* status = nullptr) {
        int rc = -1;
        const std::string out = testsupport::run_ingestd(
            "gc " + args, {{"INGEST_REDIS_URL", fx.server().url()}, {"INGEST_STORAGE_ROOT", fx.store().string()}}, &rc);
        if (status) *status = rc;
        std::multiset<std::string> removed;
        std::istringstream lines(out);
        for (std::string line; std::getline(lines, line);) {
            const auto json = nlohmann::json::parse(line);
            for (const auto& [k, v] : json.items()) EXPECT_TRUE(v.is_string()) << line;
            removed.insert(json.at("removed").get<std::string>() + ":" + json.at("key").get<std::string>());
        }
        return removed;
    }
    void backdate(const std::string& key, int seconds) {
        const auto t = std::filesystem::last_write_time(fx.store() / key);
        std::filesystem::last_write_time(fx.store() / key, t - std::chrono::seconds(seconds));
    }
    void tombstone(const std::string& id, const std::string& storage_key, const std::string& deleted_at) {
        fx.redis().command({"HSET", "ingest:file:" + id, "status", "deleted", "deleted_at", deleted_at, "event_id",
                            "1-0", "storage_key", storage_key});
    }
};

TEST_F(Gc, RemovesOrphansAndOldOriginalsAndNothingElse) {
    fx.start("w1");
    fx.put("up/live.txt", "a live file\n");
    fx.submit("live", "up/live.txt");
    fx.put("up/gone.txt", "a deleted file\n");
    fx.submit("gone", "up/gone.txt");
    ASSERT_EQ(fx.wait_final("live"), "done");
    ASSERT_EQ(fx.wait_final("gone"), "done");
    fx.add({{"file_id", "gone"}, {"op", "delete"}});
    ASSERT_TRUE(fx.wait_status("gone", "deleted", 30s));
    fx.put("thumbnails/ghost/72.webp", "RIFF0000WEBP"); // a crash's leftovers: no metadata
    fx.put("text/ghost.txt", "orphaned text");
    fx.put("thumbnails/live/72.webp", "RIFF0000WEBP"); // live metadata names no thumbnail
    fx.redis().command({"HSET", "ingest:file:busy", "status", "processing"});
    fx.put("thumbnails/busy/72.webp", "RIFF0000WEBP"); // a worker may be writing it now
    fx.put("thumbnails/README", "not ours");
    fx.put("text/.ghost2.txt.tmp-0123456789ab", "old temporary");
    backdate("text/.ghost2.txt.tmp-0123456789ab", 7200);
    fx.put("text/.ghost3.txt.tmp-0123456789ab", "a write in progress");
    const std::multiset<std::string> orphans = {"output:thumbnails/ghost/72.webp", "output:text/ghost.txt",
                                                "output:thumbnails/live/72.webp",
                                                "temporary:text/.ghost2.txt.tmp-0123456789ab"};
    int status = -1;
    EXPECT_EQ(gc("--grace 0 --dry-run", &status), [&] {
        auto all = orphans;
        all.insert("original:up/gone.txt");
        return all;
    }());
    EXPECT_EQ(status, 0);
    EXPECT_TRUE(exists("thumbnails/ghost/72.webp") && exists("up/gone.txt"));
    EXPECT_EQ(gc("--grace 3600", &status), orphans); // the original is within its grace
    EXPECT_EQ(status, 0);
    EXPECT_TRUE(exists("up/gone.txt"));
    EXPECT_EQ(gc("--grace 0", &status), std::multiset<std::string>{"original:up/gone.txt"});
    EXPECT_FALSE(exists("up/gone.txt"));
    EXPECT_EQ(fx.field("gone", "status"), "deleted");
    EXPECT_EQ(fx.field("gone", "storage_key"), "");
    for (const char* kept :
         {"up/live.txt", "thumbnails/busy/72.webp", "thumbnails/README", "text/.ghost3.txt.tmp-0123456789ab"}) {
        EXPECT_TRUE(exists(kept)) << kept;
    }
    EXPECT_EQ(gc("--grace 0", &status), std::multiset<std::string>{}); // nothing left to do
}

TEST_F(Gc, AfterAWorkerKilledBetweenOutputsAndCommitOrphansGoLiveFilesStay) {
    fx.env()["INGEST_CLAIM_IDLE_MS"] = "1500";
    fx.env()["INGEST_MAX_DELIVERIES"] = "1";
    const auto image = fx.dir() / "photo.png";
    testsupport::write_image(image, 120, 80);
    fx.start("w1");
    fx.put_copy("up/live.png", image);
    fx.submit("live", "up/live.png");
    ASSERT_EQ(fx.wait_final("live"), "done");
    // A scanned page: its OCR keeps the job busy for a second or two before the outputs are written.
    fx.put("up/crash.pdf", testsupport::scanned_text_pdf(fx.dir(), 1));
    fx.submit("crash", "up/crash.pdf");
    ASSERT_TRUE(fx.wait_status("crash", "processing", 30s));
    // Writes wait from here (the commit is a script that writes); storage writes do not.
    fx.redis().command({"CLIENT", "PAUSE", "60000", "WRITE"});
    const std::string thumb = core::thumbnail_key("crash", 288);
    const bool written = eventually(60s, [&] { return exists(thumb); });
    fx.kill("w1"); // SIGKILL between the outputs and the commit
    fx.redis().command({"CLIENT", "UNPAUSE"});
    ASSERT_TRUE(written);
    ASSERT_EQ(fx.field("crash", "status"), "processing");
    EXPECT_EQ(gc("--grace 0").count("output:" + thumb), 0u); // processing: kept
    // The redelivery gives up (INGEST_MAX_DELIVERIES=1): the file ends failed, its outputs orphaned.
    fx.start("w2");
    ASSERT_EQ(fx.wait_final("crash"), "failed");
    const auto removed = gc("--grace 0");
    for (const auto& key : core::output_keys("crash")) {
        EXPECT_FALSE(exists(key)) << key;
    }
    EXPECT_EQ(removed.count("output:" + thumb), 1u);
    for (const char* field : {"thumbnail_72_key", "thumbnail_288_key"}) {
        EXPECT_TRUE(exists(fx.field("live", field))) << field;
    }
    EXPECT_TRUE(exists("up/live.png") && exists("up/crash.pdf"));
}

TEST_F(Gc, TwoCollectorsAtOnceRemoveEverythingOnceAndNothingLive) {
    std::set<std::string> orphans, originals;
    for (int i = 0; i < 300; ++i) {
        const std::string key = core::thumbnail_key("orphan" + std::to_string(i), 72);
        fx.put(key, "RIFF0000WEBP");
        orphans.insert(key);
    }
    for (int i = 0; i < 100; ++i) {
        const std::string id = "dead" + std::to_string(i), key = "up/" + id + ".bin";
        fx.put(key, "bytes");
        tombstone(id, key, "2020-01-01T00:00:00.000Z");
        originals.insert(key);
    }
    fx.put("up/keep.bin", "live bytes");
    fx.put(core::text_key("keep"), "live text");
    fx.redis().command({"HSET", "ingest:file:keep", "status", "done", "storage_key", "up/keep.bin",
                        "extracted_text_key", core::text_key("keep")});
    int s1 = -1, s2 = -1;
    auto first = std::async(std::launch::async, [&] { return gc("--grace 60", &s1); });
    auto second = std::async(std::launch::async, [&] { return gc("--grace 60", &s2); });
    std::multiset<std::string> removed = first.get();
    removed.merge(second.get());
    EXPECT_EQ(s1, 0);
    EXPECT_EQ(s2, 0);
    for (const auto& key : orphans) {
        EXPECT_FALSE(exists(key)) << key;
        EXPECT_GE(removed.count("output:" + key), 1u) << key;
    }
    for (const auto& key : originals) {
        EXPECT_FALSE(exists(key)) << key;
        EXPECT_EQ(removed.count("original:" + key), 1u) << key; // reported by one collector only
    }
    EXPECT_TRUE(exists("up/keep.bin") && exists(core::text_key("keep")));
    for (const auto& line : removed) {
        const auto colon = line.find(':');
        const std::string kind = line.substr(0, colon), key = line.substr(colon + 1);
        EXPECT_TRUE(kind == "output" ? orphans.count(key) == 1 : originals.count(key) == 1) << line;
    }
}

} // namespace

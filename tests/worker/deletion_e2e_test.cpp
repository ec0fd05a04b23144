// Deletion end to end: real redis-server, real `ingestd worker` and `ingestd delete`
// processes, real images made at run time (so none of this needs the corpus).
#include "core/layout.hpp"
#include "tests/support/generated_file.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/worker_fixture.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;

struct DeletionE2E : ::testing::Test {
    testsupport::WorkerFixture fx;
    std::filesystem::path image;

    void SetUp() override {
        image = fx.dir() / "photo.png";
        testsupport::write_image(image, 300, 200); // noise: well over the 64 KiB of dedup
    }
    bool exists(const std::string& key) { return std::filesystem::exists(fx.store() / key); }
    std::string ingestd(const std::string& args, int* status) {
        return testsupport::run_ingestd(args, {{"INGEST_REDIS_URL", fx.server().url()}}, status);
    }
    std::string redis_get(const std::string& key) { return fx.redis().command({"GET", key}).str; }
};

TEST_F(DeletionE2E, DeleteAfterDoneTombstonesRemovesOutputsAndAnswers410) {
    const int port = testsupport::free_port();
    fx.start("w1", {{"INGEST_HTTP_ADDR", "127.0.0.1:" + std::to_string(port)}});
    fx.put_copy("up/a.png", image);
    fx.submit("delA", "up/a.png", {{"name", "photo.png"}, {"owner", "u1"}});
    ASSERT_EQ(fx.wait_final("delA"), "done");
    const std::string thumb = fx.field("delA", "thumbnail_288_key");
    const std::string hash = fx.field("delA", "content_hash");
    ASSERT_TRUE(exists(thumb));
    ASSERT_EQ(redis_get("ingest:hash:" + hash), "delA");
    int status = -1;
    const std::string out = ingestd("delete delA", &status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find("\"file_id\":\"delA\""), std::string::npos) << out;
    ASSERT_TRUE(fx.wait_status("delA", "deleted", 30s));
    EXPECT_FALSE(fx.field("delA", "deleted_at").empty());
    EXPECT_EQ(fx.field("delA", "content_hash"), hash);
    EXPECT_EQ(fx.field("delA", "name"), "photo.png");
    EXPECT_EQ(fx.field("delA", "owner"), "u1");
    for (const char* gone : {"thumbnail_288_key", "extraction_status", "content_type", "width", "size_bytes"}) {
        EXPECT_EQ(fx.field("delA", gone), "") << gone;
    }
    EXPECT_TRUE(eventually(10s, [&] { return !exists(thumb); }));
    for (const auto& key : core::output_keys("delA")) EXPECT_FALSE(exists(key)) << key;
    EXPECT_EQ(redis_get("ingest:hash:" + hash), "");
    EXPECT_EQ(fx.results_count("deleted")["delA"], 1);
    EXPECT_EQ(testsupport::http_get(port, "/v1/files/delA").status, 410);
    EXPECT_EQ(testsupport::http_get(port, "/v1/files/delA/thumbnail/72").status, 410);
    EXPECT_NE(testsupport::http_get(port, "/metrics").body.find("ingestd_deletions_total 1"), std::string::npos);
    EXPECT_TRUE(exists("up/a.png")); // the original waits for gc and its grace
}

TEST_F(DeletionE2E, DeleteBeforeTheWorkerSawTheUploadDropsTheLateUpload) {
    fx.put_copy("up/b.png", image);
    fx.submit("delB", "up/b.png");
    fx.add({{"file_id", "delB"}, {"op", "delete"}});
    fx.start("w1");
    ASSERT_TRUE(fx.wait_status("delB", "deleted", 60s));
    EXPECT_TRUE(eventually(30s, [&] { return fx.pending() == 0; }));
    EXPECT_EQ(fx.field("delB", "status"), "deleted");
    EXPECT_EQ(fx.results_count("final")["delB"], 0);
    for (const auto& key : core::output_keys("delB")) EXPECT_FALSE(exists(key)) << key;
}

TEST_F(DeletionE2E, DeletingAnUnknownIdWritesATombstone) {
    fx.start("w1");
    fx.add({{"file_id", "ghost1"}, {"op", "delete"}, {"storage_key", "up/never.png"}});
    ASSERT_TRUE(fx.wait_status("ghost1", "deleted", 30s));
    EXPECT_FALSE(fx.field("ghost1", "deleted_at").empty());
    EXPECT_EQ(fx.field("ghost1", "storage_key"), "up/never.png"); // for gc, once past the grace
    EXPECT_TRUE(eventually(30s, [&] { return fx.pending() == 0; }));
}

TEST_F(DeletionE2E, ReuploadAfterDeleteAndIdenticalBytesAreComputedAfresh) {
    fx.start("w1");
    fx.put_copy("up/c.png", image);
    fx.submit("delC", "up/c.png");
    ASSERT_EQ(fx.wait_final("delC"), "done");
    fx.add({{"file_id", "delC"}, {"op", "delete"}});
    ASSERT_TRUE(fx.wait_status("delC", "deleted", 30s));
    // Identical bytes under another id: not copied from the tombstone.
    fx.put_copy("up/d.png", image);
    fx.submit("delD", "up/d.png");
    ASSERT_EQ(fx.wait_final("delD"), "done");
    EXPECT_EQ(fx.field("delD", "deduplicated_from"), "");
    EXPECT_TRUE(exists(fx.field("delD", "thumbnail_72_key")));
    EXPECT_EQ(redis_get("ingest:hash:" + fx.field("delD", "content_hash")), "delD");
    // A newer upload under the deleted id brings it back.
    fx.submit("delC", "up/c.png");
    ASSERT_TRUE(fx.wait_status("delC", "done", 60s));
    EXPECT_EQ(fx.field("delC", "deleted_at"), "");
    EXPECT_TRUE(exists(fx.field("delC", "thumbnail_144_key")));
}

TEST_F(DeletionE2E, DeleteCommandRefusesABadIdAndAppendsNothing) {
    int status = -1;
    ingestd("delete ok1 'bad id'", &status);
    EXPECT_EQ(status, 2);
    EXPECT_EQ(fx.redis().command({"XLEN", "ingest:uploads"}).integer, 0);
}

} // namespace

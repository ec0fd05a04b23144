// A delete racing a process event in flight on another worker: two JobRunners (consumers
// "w1" and "w2") on a real redis-server and one memory store. The fence decides, and the
// outputs the stale job writes after the tombstone do not survive it.
#include "core/layout.hpp"
#include "jobs/queue.hpp"
#include "tests/support/memory_store.hpp"
#include "tests/support/redis_server.hpp"
#include "worker/daemon/job_runner.hpp"
#include "worker/http/metrics.hpp"

#include <future>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;

struct DeletionRace : ::testing::Test {
    testsupport::RedisServer server;
    jobs::Redis redis{jobs::parse_redis_url(server.url()), 3000ms};
    worker::Config config1, config2;
    std::unique_ptr<jobs::Queue> queue1, queue2;
    testsupport::MemoryStore store;
    worker::Metrics metrics;
    std::atomic<bool> stopping{false};
    std::promise<void> analysing, release;

    void SetUp() override {
        for (auto* c : {&config1, &config2}) c->redis_url = server.url();
        config1.consumer = "w1";
        config2.consumer = "w2";
        queue1 = std::make_unique<jobs::Queue>(worker::queue_names(config1));
        queue2 = std::make_unique<jobs::Queue>(worker::queue_names(config2));
        queue1->ensure_group(redis);
        store.put("up/f1.bin", std::string(1000, 'x'));
    }
    std::string add(const std::vector<std::string>& fields) {
        std::vector<std::string> cmd = {"XADD", "ingest:uploads", "*"};
        cmd.insert(cmd.end(), fields.begin(), fields.end());
        return redis.command(cmd).str;
    }
    jobs::Delivery read(const jobs::Queue& q) {
        auto got = q.read(redis, 1, 100ms);
        EXPECT_EQ(got.size(), 1u);
        return got.empty() ? jobs::Delivery{} : got[0];
    }
    // w1's analysis says it started, then waits for the test: its thumbnail is "rendered" late.
    worker::JobRunner::Analyse slow_analyse() {
        return [this](int, std::uint64_t size, const std::string& hash, const worker::JobSpec& spec,
                      const worker::PipelineOptions&) {
            analysing.set_value();
            release.get_future().wait();
            worker::PipelineResult r = worker::unparsed_result(size, hash, spec, "image/png");
            r.outputs.push_back({core::thumbnail_key(spec.file_id, 72), "RIFF....WEBP"});
            r.fields.emplace_back("thumbnail_72_key", core::thumbnail_key(spec.file_id, 72));
            return r;
        };
    }
    worker::JobRunner::Analyse plain_analyse() {
        return [](int, std::uint64_t size, const std::string& hash, const worker::JobSpec& spec,
                  const worker::PipelineOptions&) { return worker::unparsed_result(size, hash, spec, "text/plain"); };
    }
    std::string meta(const std::string& field) { return redis.command({"HGET", "ingest:file:f1", field}).str; }
    long long pending() { return redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements.at(0).integer; }
};

TEST_F(DeletionRace, DeleteWhileProcessEventInFlightWinsAndLeavesNoOutputs) {
    add({"file_id", "f1", "storage_key", "up/f1.bin", "name", "a.png", "owner", "u1"});
    const jobs::Delivery process = read(*queue1);
    add({"file_id", "f1", "op", "delete"});
    worker::JobRunner w1(config1, *queue1, store, metrics, stopping, slow_analyse());
    auto in_flight = std::async(std::launch::async, [&] { w1.run(process); });
    analysing.get_future().wait(); // w1 wrote `processing` and is rendering
    EXPECT_EQ(meta("status"), "processing");
    worker::JobRunner w2(config2, *queue2, store, metrics, stopping, plain_analyse());
    w2.run(read(*queue2)); // the delete, on the other worker
    EXPECT_EQ(meta("status"), "deleted");
    release.set_value();
    in_flight.get();
    // The stale commit was superseded: the file stays deleted, its late thumbnail is gone.
    EXPECT_EQ(meta("status"), "deleted");
    EXPECT_FALSE(meta("deleted_at").empty());
    EXPECT_EQ(meta("name"), "a.png");
    EXPECT_EQ(meta("owner"), "u1");
    EXPECT_EQ(meta("thumbnail_72_key"), "");
    EXPECT_EQ(meta("storage_key"), "up/f1.bin");
    EXPECT_FALSE(store.get(core::thumbnail_key("f1", 72)).has_value());
    EXPECT_EQ(pending(), 0);
    EXPECT_NE(metrics.render().find("ingestd_deletions_total 1\n"), std::string::npos);
}

TEST_F(DeletionRace, NewerProcessEventAfterTheDeleteBringsTheFileBack) {
    add({"file_id", "f1", "op", "delete"});
    add({"file_id", "f1", "storage_key", "up/f1.bin"});
    worker::JobRunner w1(config1, *queue1, store, metrics, stopping, plain_analyse());
    w1.run(read(*queue1));
    EXPECT_EQ(meta("status"), "deleted");
    worker::JobRunner w2(config2, *queue2, store, metrics, stopping, plain_analyse());
    w2.run(read(*queue2));
    EXPECT_EQ(meta("status"), "done");
    EXPECT_EQ(meta("deleted_at"), "");
    EXPECT_EQ(pending(), 0);
}

TEST_F(DeletionRace, StaleDeleteAfterANewerUploadIsSuperseded) {
    add({"file_id", "f1", "op", "delete"});
    add({"file_id", "f1", "storage_key", "up/f1.bin"});
    const jobs::Delivery old_delete = read(*queue1);
    worker::JobRunner w2(config2, *queue2, store, metrics, stopping, plain_analyse());
    w2.run(read(*queue2)); // the newer upload finishes first
    EXPECT_EQ(meta("status"), "done");
    worker::JobRunner w1(config1, *queue1, store, metrics, stopping, plain_analyse());
    w1.run(old_delete);
    EXPECT_EQ(meta("status"), "done");
    EXPECT_EQ(pending(), 0);
}

TEST_F(DeletionRace, BadOpIsAnInvalidEvent) {
    add({"file_id", "f1", "op", "shred"});
    worker::JobRunner w1(config1, *queue1, store, metrics, stopping, plain_analyse());
    w1.run(read(*queue1));
    EXPECT_EQ(meta("status"), "failed");
    EXPECT_EQ(meta("error_code"), "invalid_event");
    EXPECT_EQ(pending(), 0);
}

} // namespace

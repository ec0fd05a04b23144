#include "jobs/hash_index.hpp"
#include "jobs/metadata.hpp"
#include "jobs/queue.hpp"
#include "tests/support/redis_server.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using jobs::Fence;

struct QueueFixture : ::testing::Test {
    testsupport::RedisServer server;
    jobs::Redis redis{jobs::parse_redis_url(server.url()), 3000ms};

    jobs::Queue queue_for(const std::string& consumer) {
        jobs::QueueNames n;
        n.consumer = consumer;
        return jobs::Queue(n);
    }
    std::string add(const std::string& file_id) {
        return redis.command({"XADD", "ingest:uploads", "*", "file_id", file_id, "storage_key", "k"}).str;
    }
    // The group made, one event for `file_id` added and read by `q`.
    jobs::Delivery deliver_one(const jobs::Queue& q, const std::string& file_id) {
        q.ensure_group(redis);
        add(file_id);
        return q.read(redis, 1, 100ms).at(0);
    }
    std::string meta(const std::string& file_id, const std::string& field) {
        return redis.command({"HGET", "ingest:file:" + file_id, field}).str;
    }
    long long results_for(const std::string& file_id, const std::string& status) {
        long long n = 0;
        for (const auto& e : redis.command({"XRANGE", "ingest:results", "-", "+"}).elements) {
            auto f = e.elements[1].as_pairs();
            bool id = false, st = false;
            for (auto& [k, v] : f) {
                id = id || (k == "file_id" && v == file_id);
                st = st || (k == "status" && v == status);
            }
            n += id && st;
        }
        return n;
    }
};

TEST_F(QueueFixture, GroupCreatedWithMkstreamAndBusyGroupIsFine) {
    auto q = queue_for("c1");
    q.ensure_group(redis);
    q.ensure_group(redis);
    EXPECT_EQ(redis.command({"EXISTS", "ingest:uploads"}).integer, 1);
}

TEST_F(QueueFixture, ReadsOnlyWhatIsAskedAndRecreatesVanishedGroup) {
    auto q = queue_for("c1");
    q.ensure_group(redis);
    for (int i = 0; i < 5; ++i) add("f" + std::to_string(i));
    auto got = q.read(redis, 2, 100ms);
    EXPECT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].deliveries, 1);
    redis.command({"XGROUP", "DESTROY", "ingest:uploads", "ingestd"});
    bool recreated = false;
    got = q.read(redis, 10, 100ms, &recreated);
    EXPECT_TRUE(recreated);
    EXPECT_EQ(got.size(), 5u); // the recreated group starts at 0
}

TEST_F(QueueFixture, StartCommitAckAndPublishOnce) {
    auto q = queue_for("c1");
    q.ensure_group(redis);
    std::string id = add("f1");
    auto d = q.read(redis, 1, 100ms).at(0);
    EXPECT_EQ(q.start(redis, d.entry_id, "f1", {{"worker", "c1"}}), Fence::ok);
    EXPECT_EQ(meta("f1", "status"), "processing");
    EXPECT_EQ(meta("f1", "event_id"), id);
    EXPECT_EQ(q.commit(redis, d.entry_id, "f1", {{"status", "done"}, {"content_hash", "ab"}}, {"worker"}), Fence::ok);
    EXPECT_EQ(meta("f1", "status"), "done");
    EXPECT_TRUE(redis.command({"HGET", "ingest:file:f1", "worker"}).is_nil());
    EXPECT_EQ(redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements[0].integer, 0);
    // A second commit of the same (now acknowledged) entry changes nothing.
    EXPECT_EQ(q.commit(redis, d.entry_id, "f1", {{"status", "failed"}}, {}), Fence::lost);
    EXPECT_EQ(meta("f1", "status"), "done");
    EXPECT_EQ(results_for("f1", "done"), 1);
    EXPECT_EQ(results_for("f1", "processing"), 1);
}

TEST_F(QueueFixture, CommitFencedByOwnership) {
    auto a = queue_for("a");
    auto b = queue_for("b");
    auto d = deliver_one(a, "f1");
    EXPECT_EQ(a.start(redis, d.entry_id, "f1", {}), Fence::ok);
    std::this_thread::sleep_for(30ms);
    auto stolen = b.reclaim(redis, 10, 10ms);
    ASSERT_EQ(stolen.size(), 1u);
    EXPECT_EQ(stolen[0].deliveries, 2);
    EXPECT_EQ(a.commit(redis, d.entry_id, "f1", {{"status", "done"}}, {}), Fence::lost);
    EXPECT_EQ(a.renew(redis, {d.entry_id}), std::vector<std::string>{d.entry_id});
    EXPECT_EQ(b.commit(redis, d.entry_id, "f1", {{"status", "done"}}, {}), Fence::ok);
    EXPECT_EQ(results_for("f1", "done"), 1);
}

TEST_F(QueueFixture, RedeliveryOfFinalEventOnlyAcks) {
    auto a = queue_for("a");
    auto d = deliver_one(a, "f1");
    ASSERT_EQ(a.commit(redis, d.entry_id, "f1", {{"status", "done"}}, {}), Fence::ok);
    // Simulate a redelivery: the same entry pending again for this consumer.
    redis.command({"XCLAIM", "ingest:uploads", "ingestd", "a", "0", d.entry_id, "FORCE"});
    EXPECT_EQ(a.start(redis, d.entry_id, "f1", {}), Fence::already_final);
    EXPECT_EQ(redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements[0].integer, 0);
    EXPECT_EQ(results_for("f1", "done"), 1);
}

TEST_F(QueueFixture, StaleDeliveryNeverOverwritesNewerEvent) {
    auto a = queue_for("a");
    a.ensure_group(redis);
    add("same");
    add("same");
    auto got = a.read(redis, 2, 100ms);
    ASSERT_EQ(got.size(), 2u);
    ASSERT_EQ(a.start(redis, got[0].entry_id, "same", {}), Fence::ok);
    ASSERT_EQ(a.start(redis, got[1].entry_id, "same", {}), Fence::ok);
    ASSERT_EQ(a.commit(redis, got[1].entry_id, "same", {{"status", "done"}, {"content_hash", "new"}}, {}), Fence::ok);
    EXPECT_EQ(a.commit(redis, got[0].entry_id, "same", {{"status", "done"}, {"content_hash", "old"}}, {}),
              Fence::superseded);
    EXPECT_EQ(meta("same", "content_hash"), "new");
    EXPECT_EQ(redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements[0].integer, 0);
}

TEST_F(QueueFixture, DeadLetterKeepsFieldsThenFailsThenAcks) {
    auto a = queue_for("a");
    auto d = deliver_one(a, "poison");
    d.deliveries = 6;
    EXPECT_EQ(a.dead_letter(redis, d, "poison", "delivered 6 times", true,
                            {{"error_code", "gave_up"}, {"error", "Gave up."}}),
              Fence::ok);
    auto dead = redis.command({"XRANGE", "ingest:uploads:dead", "-", "+"});
    ASSERT_EQ(dead.elements.size(), 1u);
    auto f = dead.elements[0].elements[1].as_pairs();
    std::map<std::string, std::string> m(f.begin(), f.end());
    EXPECT_EQ(m["file_id"], "poison");
    EXPECT_EQ(m["storage_key"], "k");
    EXPECT_EQ(m["dead_reason"], "delivered 6 times");
    EXPECT_EQ(m["dead_deliveries"], "6");
    EXPECT_EQ(m["dead_source_id"], d.entry_id);
    EXPECT_EQ(meta("poison", "status"), "failed");
    EXPECT_EQ(meta("poison", "error_code"), "gave_up");
    EXPECT_EQ(redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements[0].integer, 0);
}

TEST_F(QueueFixture, CommitSurvivesScriptFlush) {
    auto a = queue_for("a");
    auto d = deliver_one(a, "f1");
    redis.command({"SCRIPT", "FLUSH"});
    EXPECT_EQ(a.commit(redis, d.entry_id, "f1", {{"status", "done"}}, {}), Fence::ok);
}

TEST_F(QueueFixture, RefusedCommandsThrowTheTypedReplyError) {
    auto q = queue_for("a");
    redis.command({"SET", "ingest:uploads", "not a stream"});
    try {
        q.read(redis, 1, 10ms);
        ADD_FAILURE() << "a read of a string key succeeded";
    } catch (const jobs::RedisReplyError& e) {
        EXPECT_TRUE(e.error_is("WRONGTYPE")) << e.reply();
        EXPECT_NE(std::string(e.what()).find("XREADGROUP"), std::string::npos) << e.what();
    }
    redis.command({"SET", "ingest:file:f1", "not a hash"});
    EXPECT_THROW(jobs::read_metadata(redis, q.names(), "f1"), jobs::RedisReplyError);
    redis.command({"HSET", "ingest:hash:ab", "x", "y"});
    EXPECT_THROW(jobs::lookup_hash_source(redis, q.names(), "ab"), jobs::RedisReplyError);
    redis.command({"SET", "ingest:uploads:dead", "not a stream"});
    EXPECT_THROW(q.dead_letter_count(redis), jobs::RedisReplyError);
}

TEST_F(QueueFixture, WritesAfterTheGroupVanishedAreLost) {
    auto a = queue_for("a");
    auto d = deliver_one(a, "f1");
    ASSERT_EQ(a.start(redis, d.entry_id, "f1", {}), Fence::ok);
    redis.command({"XGROUP", "DESTROY", "ingest:uploads", "ingestd"});
    // NOGROUP from inside the scripts: recognised by its prefix, not by a search.
    EXPECT_EQ(a.commit(redis, d.entry_id, "f1", {{"status", "done"}}, {}), Fence::lost);
    EXPECT_EQ(a.dead_letter(redis, d, "f1", "gave up", true, {}), Fence::lost);
    EXPECT_EQ(a.renew(redis, {d.entry_id}), std::vector<std::string>{d.entry_id});
    EXPECT_EQ(meta("f1", "status"), "processing");
}

TEST_F(QueueFixture, CountsDeadLettersAndLooksUpTheHashIndex) {
    auto a = queue_for("a");
    EXPECT_EQ(a.dead_letter_count(redis), 0);
    EXPECT_EQ(a.pending_and_lag(redis), (std::pair<long long, long long>(0, 0)));
    a.ensure_group(redis);
    add("f1");
    add("f2");
    auto got = a.read(redis, 1, 100ms);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(a.pending_and_lag(redis), (std::pair<long long, long long>(1, 1)));
    EXPECT_EQ(jobs::lookup_hash_source(redis, a.names(), "abc"), std::nullopt);
    ASSERT_EQ(a.commit(redis, got[0].entry_id, "f1", {{"status", "done"}}, {}, "abc"), Fence::ok);
    EXPECT_EQ(jobs::lookup_hash_source(redis, a.names(), "abc"), "f1");
    auto second = a.read(redis, 1, 100ms).at(0);
    ASSERT_EQ(a.dead_letter(redis, second, "f2", "poison", true, {{"error_code", "gave_up"}}), Fence::ok);
    EXPECT_EQ(a.dead_letter_count(redis), 1);
}

} // namespace

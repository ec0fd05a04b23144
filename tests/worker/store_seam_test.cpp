// The storage seam shown by a second implementation: a worker::JobRunner against a real
// redis-server, with testsupport::MemoryStore in place of the filesystem store and an
// in-process analyse step. Outputs, reuse copies and inputs must all go through the Store.
#include "core/layout.hpp"
#include "jobs/queue.hpp"
#include "tests/support/memory_store.hpp"
#include "tests/support/redis_server.hpp"
#include "worker/daemon/dedup.hpp"
#include "worker/daemon/job_runner.hpp"
#include "worker/http/metrics.hpp"

#include <algorithm>

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;

// Bytes above worker::k_dedup_min_bytes, so that the runner indexes and looks them up.
std::string large_bytes(char seed) {
    std::string bytes(80 * 1024, '\0');
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(seed + i * 31 % 251);
    return bytes;
}

std::string read_all(int fd) {
    std::string bytes;
    char buf[8192];
    for (off_t at = 0;;) {
        ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n <= 0) return bytes;
        bytes.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
}

struct StoreSeam : ::testing::Test {
    testsupport::RedisServer server;
    worker::Config config = [this] {
        worker::Config c;
        c.redis_url = server.url();
        c.consumer = "seam";
        c.storage_root = "/nonexistent/ingestd-store-seam"; // never to be used
        return c;
    }();
    jobs::Queue queue{worker::queue_names(config)};
    jobs::Redis redis{jobs::parse_redis_url(server.url()), 3000ms};
    testsupport::MemoryStore store;
    worker::Metrics metrics;
    std::atomic<bool> stopping{false};
    std::vector<std::string> analysed;       // file ids the analyse step was given
    std::map<std::string, std::string> seen; // file id -> the bytes its descriptor held
    bool stop_text = false;                  // the analyse step's text step is stopped by the deadline
    worker::JobRunner runner{config,
                             queue,
                             store,
                             metrics,
                             stopping,
                             [this](int fd, std::uint64_t size, const std::string& hash, const worker::JobSpec& spec,
                                    const worker::PipelineOptions&) { return analyse(fd, size, hash, spec); }};

    void SetUp() override { queue.ensure_group(redis); }

    // A text file's result with a spilled text and three thumbnails as outputs.
    worker::PipelineResult analyse(int fd, std::uint64_t size, const std::string& hash, const worker::JobSpec& spec) {
        analysed.push_back(spec.file_id);
        seen[spec.file_id] = read_all(fd);
        worker::PipelineResult r;
        r.content_hash = hash;
        r.fields = {{"content_hash", hash}, {"size_bytes", std::to_string(size)}, {"content_type", "text/plain"}};
        if (stop_text) {
            worker::fail_step(r, worker::Step::text, {core::ErrorCode::timeout, "The job's time ran out."});
        } else {
            r.fields.insert(r.fields.end(), {{"extraction_status", "done"},
                                             {"extraction_method", "plain"},
                                             {"extracted_text_key", core::text_key(spec.file_id)}});
            r.outputs.push_back({core::text_key(spec.file_id), "text of " + hash});
        }
        r.fields.emplace_back("thumbnail_status", "done");
        for (int s : core::k_thumbnail_sizes) {
            r.fields.emplace_back(core::thumbnail_field(s), core::thumbnail_key(spec.file_id, s));
            r.outputs.push_back({core::thumbnail_key(spec.file_id, s), "webp " + std::to_string(s) + " of " + hash});
        }
        return r;
    }

    // Stores `bytes` as an upload, appends its event and runs the job of its delivery.
    void process(const std::string& file_id, const std::string& bytes) {
        const std::string key = "uploads/" + file_id + ".bin";
        store.put(key, bytes);
        redis.command({"XADD", "ingest:uploads", "*", "file_id", file_id, "storage_key", key});
        auto got = queue.read(redis, 1, 100ms);
        ASSERT_EQ(got.size(), 1u);
        runner.run(got[0]);
    }
    std::string meta(const std::string& file_id, const std::string& field) {
        return redis.command({"HGET", "ingest:file:" + file_id, field}).str;
    }
    long long pending() { return redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements.at(0).integer; }
    bool written(const std::string& key) {
        auto w = store.writes();
        return std::find(w.begin(), w.end(), key) != w.end();
    }
};

TEST_F(StoreSeam, CommitLandsInRedisAndOutputsInTheStoreUnderLayoutKeys) {
    const std::string bytes = large_bytes('a');
    process("f1", bytes);
    EXPECT_EQ(meta("f1", "status"), "done");
    EXPECT_EQ(pending(), 0);
    EXPECT_EQ(store.opened(), std::vector<std::string>{"uploads/f1.bin"});
    EXPECT_EQ(seen["f1"], bytes); // the analyse step read the store's descriptor
    const std::string hash = meta("f1", "content_hash");
    ASSERT_EQ(hash.size(), 64u);
    EXPECT_EQ(meta("f1", "size_bytes"), std::to_string(bytes.size()));
    EXPECT_EQ(meta("f1", "extracted_text_key"), core::text_key("f1"));
    EXPECT_EQ(store.get(core::text_key("f1")), "text of " + hash);
    for (int s : core::k_thumbnail_sizes) {
        const std::string key = core::thumbnail_key("f1", s);
        EXPECT_EQ(meta("f1", core::thumbnail_field(s)), key);
        EXPECT_TRUE(written(key)) << key;
        EXPECT_EQ(store.get(key), "webp " + std::to_string(s) + " of " + hash);
    }
    // A finished result of large bytes is indexed for reuse.
    EXPECT_EQ(redis.command({"GET", "ingest:hash:" + hash}).str, "f1");
    EXPECT_TRUE(store.copies().empty());
}

TEST_F(StoreSeam, IdenticalBytesAreReusedThroughStoreCopy) {
    const std::string bytes = large_bytes('b');
    ASSERT_GE(bytes.size(), worker::k_dedup_min_bytes);
    process("f1", bytes);
    process("f2", bytes);
    EXPECT_EQ(analysed, std::vector<std::string>{"f1"});
    EXPECT_EQ(meta("f2", "status"), "done");
    EXPECT_EQ(meta("f2", "deduplicated_from"), "f1");
    EXPECT_EQ(meta("f2", "content_hash"), meta("f1", "content_hash"));
    std::vector<std::pair<std::string, std::string>> expected = {{core::text_key("f1"), core::text_key("f2")}};
    for (int s : core::k_thumbnail_sizes)
        expected.emplace_back(core::thumbnail_key("f1", s), core::thumbnail_key("f2", s));
    auto copies = store.copies();
    std::sort(copies.begin(), copies.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(copies, expected);
    EXPECT_EQ(meta("f2", "extracted_text_key"), core::text_key("f2"));
    for (int s : core::k_thumbnail_sizes) {
        const std::string key = core::thumbnail_key("f2", s);
        EXPECT_EQ(meta("f2", core::thumbnail_field(s)), key);
        EXPECT_FALSE(written(key)) << key << " was computed again instead of copied";
        EXPECT_EQ(store.get(key), store.get(core::thumbnail_key("f1", s)));
    }
    EXPECT_EQ(pending(), 0);
}

TEST_F(StoreSeam, StoppedTextStepIsNotIndexedForReuse) {
    stop_text = true;
    const std::string bytes = large_bytes('c');
    process("f1", bytes);
    EXPECT_EQ(meta("f1", "status"), "done");
    EXPECT_EQ(meta("f1", "extraction_status"), "failed");
    EXPECT_EQ(meta("f1", "extraction_error_code"), "timeout");
    const std::string hash = meta("f1", "content_hash");
    ASSERT_EQ(hash.size(), 64u);
    EXPECT_EQ(redis.command({"EXISTS", "ingest:hash:" + hash}).integer, 0);
    // The same bytes again are analysed afresh, not copied from the stopped result.
    process("f2", bytes);
    EXPECT_EQ(analysed, (std::vector<std::string>{"f1", "f2"}));
    EXPECT_TRUE(store.copies().empty());
    EXPECT_EQ(meta("f2", "deduplicated_from"), "");
    EXPECT_EQ(pending(), 0);
}

} // namespace

// worker::JobRunner stage by stage (validation, dead letters, storage retries, lease loss,
// Redis refusals, the metric's type label) against a real redis-server and a memory store.
#include "jobs/queue.hpp"
#include "tests/support/memory_store.hpp"
#include "tests/support/redis_server.hpp"
#include "worker/daemon/job_runner.hpp"
#include "worker/http/metrics.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;

// A memory store whose next opens fail (transiently unless permanent).
class FlakyStore : public testsupport::MemoryStore {
public:
    void fail_next(int failures, bool permanent) {
        std::lock_guard lock(m_mu);
        m_failures = failures;
        m_permanent = permanent;
    }

    Input open_input(const std::string& key, std::uint64_t max_bytes) const override {
        Input in = MemoryStore::open_input(key, max_bytes); // records the attempt
        std::lock_guard lock(m_mu);
        if (m_failures > 0) {
            --m_failures;
            throw core::FileError(core::ErrorCode::storage_error, "The store did not answer.", !m_permanent);
        }
        return in;
    }

private:
    mutable std::mutex m_mu;
    mutable int m_failures = 0;
    bool m_permanent = false;
};

struct JobRunnerStages : ::testing::Test {
    testsupport::RedisServer server;
    jobs::Redis redis{jobs::parse_redis_url(server.url()), 3000ms};
    worker::Config config;
    std::unique_ptr<jobs::Queue> queue;
    FlakyStore store;
    worker::Metrics metrics;
    std::atomic<bool> stopping{false};
    std::string detected_type = "application/octet-stream"; // what the analyse step "detects"
    int analyse_calls = 0;

    void SetUp() override {
        config.redis_url = server.url();
        config.consumer = "runner";
        config.max_deliveries = 2;
        queue = std::make_unique<jobs::Queue>(worker::queue_names(config));
        queue->ensure_group(redis);
    }

    // Appends an event with `fields` and returns its delivery to this consumer.
    jobs::Delivery deliver(const std::vector<std::string>& fields) {
        std::vector<std::string> cmd = {"XADD", "ingest:uploads", "*"};
        cmd.insert(cmd.end(), fields.begin(), fields.end());
        redis.command(cmd);
        auto got = queue->read(redis, 1, 100ms);
        EXPECT_EQ(got.size(), 1u);
        return got.empty() ? jobs::Delivery{} : got[0];
    }
    void run(const jobs::Delivery& d, std::function<bool()> lease_lost = {}) {
        worker::JobRunner runner(config, *queue, store, metrics, stopping,
                                 [this](int, std::uint64_t size, const std::string& hash, const worker::JobSpec& spec,
                                        const worker::PipelineOptions&) {
                                     ++analyse_calls;
                                     return worker::unparsed_result(size, hash, spec, detected_type);
                                 });
        runner.run(d, lease_lost);
    }
    std::string meta(const std::string& field) { return redis.command({"HGET", "ingest:file:f1", field}).str; }
    long long pending() { return redis.command({"XPENDING", "ingest:uploads", "ingestd"}).elements.at(0).integer; }
    bool counted(const std::string& outcome, const std::string& type) {
        const std::string line = "ingestd_jobs_total{outcome=\"" + outcome + "\",type=\"" + type + "\"} 1\n";
        return metrics.render().find(line) != std::string::npos;
    }
};

TEST_F(JobRunnerStages, EntryWithoutFileIdIsDeadLetteredAndAcknowledged) {
    run(deliver({"storage_key", "k"}));
    EXPECT_EQ(queue->dead_letter_count(redis), 1);
    auto dead = redis.command({"XRANGE", "ingest:uploads:dead", "-", "+"}).elements.at(0).elements.at(1).as_pairs();
    std::map<std::string, std::string> m(dead.begin(), dead.end());
    EXPECT_FALSE(m["dead_reason"].empty());
    EXPECT_EQ(m["storage_key"], "k");
    EXPECT_EQ(pending(), 0);
    EXPECT_TRUE(store.opened().empty());
    EXPECT_TRUE(counted("dead", "unknown"));
}

TEST_F(JobRunnerStages, TooManyDeliveriesEndFailedGaveUp) {
    store.put("k", "bytes");
    jobs::Delivery d = deliver({"file_id", "f1", "storage_key", "k"});
    d.deliveries = config.max_deliveries + 1;
    run(d);
    EXPECT_EQ(meta("status"), "failed");
    EXPECT_EQ(meta("error_code"), "gave_up");
    EXPECT_EQ(meta("attempts"), "3");
    EXPECT_EQ(queue->dead_letter_count(redis), 1);
    EXPECT_EQ(pending(), 0);
    EXPECT_TRUE(store.opened().empty());
    EXPECT_EQ(analyse_calls, 0);
}

TEST_F(JobRunnerStages, InvalidEventFailsWithoutOpeningStorage) {
    run(deliver({"file_id", "f1", "storage_key", "../escape"}));
    EXPECT_EQ(meta("status"), "failed");
    EXPECT_EQ(meta("error_code"), "invalid_event");
    EXPECT_TRUE(store.opened().empty());
    EXPECT_EQ(pending(), 0);
    EXPECT_TRUE(counted("failed", "unknown"));
}

TEST_F(JobRunnerStages, MissingInputFailsStorageMissing) {
    run(deliver({"file_id", "f1", "storage_key", "absent.bin"}));
    EXPECT_EQ(meta("status"), "failed");
    EXPECT_EQ(meta("error_code"), "storage_missing");
    EXPECT_EQ(store.opened().size(), 1u); // not transient: not retried
    EXPECT_EQ(analyse_calls, 0);
}

// Each row: the store's failures before it answers, whether they are permanent, and what
// the job ends with after how many opens (the first try and at most three retries).
// Transient errors are retried while the job's budget lasts, then the entry is handed back
// (still pending, idle past any claim timeout), never failed; a permanent error fails at once.
TEST_F(JobRunnerStages, StorageErrorsAreRetriedOnlyWhileTransient) {
    config.job_timeout_s = 1;
    struct Case {
        int failures;
        bool permanent;
        const char* status;
        const char* error_code;
        long long pending;
    };
    for (const Case& c : {Case{2, false, "done", "", 0}, Case{1000, false, "processing", "", 1},
                          Case{1, true, "failed", "storage_error", 0}}) {
        SCOPED_TRACE(testing::Message() << c.failures << " failures, permanent " << c.permanent);
        redis.command({"DEL", "ingest:uploads", "ingest:file:f1"});
        store.clear_records();
        store.put("k", "some bytes");
        store.fail_next(c.failures, c.permanent);
        run(deliver({"file_id", "f1", "storage_key", "k"}));
        EXPECT_EQ(meta("status"), c.status);
        EXPECT_EQ(meta("error_code"), c.error_code);
        EXPECT_EQ(pending(), c.pending);
        if (c.pending == 1) {
            const jobs::Reply p = redis.command({"XPENDING", "ingest:uploads", "ingestd", "-", "+", "1"});
            EXPECT_GT(p.elements.at(0).elements.at(2).integer, 3600LL * 1000) << "not handed back";
            EXPECT_TRUE(counted("released", "unknown"));
        }
    }
}

TEST_F(JobRunnerStages, LeaseLostDuringAnalyseCommitsNothing) {
    store.put("k", "some bytes");
    run(deliver({"file_id", "f1", "storage_key", "k"}), [] { return true; });
    EXPECT_EQ(analyse_calls, 1);
    EXPECT_EQ(meta("status"), "processing");
    EXPECT_EQ(pending(), 1);
    EXPECT_TRUE(store.writes().empty());
    EXPECT_EQ(metrics.leases_lost.load(), 1);
    EXPECT_TRUE(counted("lost", "unknown"));
}

// The processing write records the event's own ocr_langs, so that `reconcile` rebuilds the
// event of a file whose worker died with them; the final commit of a run without OCR clears
// the field, as the text step owns it.
TEST_F(JobRunnerStages, ProcessingKeepsTheEventsOcrLangsForReconcile) {
    store.put("k", "some bytes");
    run(deliver({"file_id", "f1", "storage_key", "k", "ocr_langs", "eng"}), [] { return true; });
    EXPECT_EQ(meta("status"), "processing");
    EXPECT_EQ(meta("ocr_langs"), "eng");
    run(deliver({"file_id", "f1", "storage_key", "k", "ocr_langs", "eng"}));
    EXPECT_EQ(meta("status"), "done");
    EXPECT_EQ(meta("ocr_langs"), "");
}

TEST_F(JobRunnerStages, TypeLabelComesFromTheExtractorsClassifier) {
    store.put("k", "<a>xml</a>");
    detected_type = "application/xml"; // text for the extractors (read as its raw text)
    run(deliver({"file_id", "f1", "storage_key", "k"}));
    EXPECT_EQ(meta("status"), "done");
    EXPECT_TRUE(counted("done", "text")) << metrics.render();
}

TEST_F(JobRunnerStages, RedisRefusalLeavesTheEntryPending) {
    store.put("k", "some bytes");
    redis.command({"SET", "ingest:file:f1", "not a hash"}); // the processing write gets WRONGTYPE
    run(deliver({"file_id", "f1", "storage_key", "k"}));
    EXPECT_EQ(pending(), 1);
    EXPECT_EQ(analyse_calls, 0);
    EXPECT_EQ(redis.command({"GET", "ingest:file:f1"}).str, "not a hash");
    EXPECT_TRUE(counted("error", "unknown"));
}

} // namespace

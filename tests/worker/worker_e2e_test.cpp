// End to end: real redis-server, real `ingestd worker` processes, real files.
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/worker_process.hpp"

#include <csignal>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using testsupport::RedisServer;
using testsupport::TempDir;
using testsupport::WorkerProcess;

struct WorkerE2E : ::testing::Test {
    RedisServer redis;
    TempDir dir;
    std::filesystem::path store = dir.path() / "store";
    std::map<std::string, std::string> env;

    void SetUp() override {
        std::filesystem::create_directories(store);
        env = {{"INGEST_REDIS_URL", redis.url()},
               {"INGEST_STORAGE_ROOT", store.string()},
               {"INGEST_CONCURRENCY", "2"},
               {"INGEST_CLAIM_IDLE_MS", "5000"}};
    }

    std::unique_ptr<WorkerProcess> start(const std::string& name) {
        auto e = env;
        e["INGEST_CONSUMER"] = name;
        return std::make_unique<WorkerProcess>(e, dir.path() / ("worker-" + name + ".log"));
    }
    std::string put(const std::string& key, const std::string& bytes) {
        testsupport::write_file(store / key, bytes);
        return key;
    }
    void add(const std::string& fields) { redis.cli("XADD ingest:uploads '*' " + fields); }
    std::string field(const std::string& id, const std::string& f) {
        return redis.cli("HGET ingest:file:" + id + " " + f);
    }
    std::string wait_final(const std::string& id, std::chrono::seconds limit = 60s) {
        auto end = std::chrono::steady_clock::now() + limit;
        std::string st;
        while (std::chrono::steady_clock::now() < end) {
            st = field(id, "status");
            if (st == "done" || st == "failed") return st;
            std::this_thread::sleep_for(50ms);
        }
        return "timeout:" + st;
    }
    // Both workers wait in a blocking XREADGROUP (redis 7.0 adds a consumer to the
    // group only when an entry is first delivered to it, so XINFO CONSUMERS cannot
    // tell); until then a fast peer can take every event before the other asks.
    bool wait_blocked_readers(int n, std::chrono::seconds limit = 20s) {
        auto end = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < end) {
            std::string info = redis.cli("INFO clients");
            auto at = info.find("blocked_clients:");
            if (at != std::string::npos && std::atoi(info.c_str() + at + 16) >= n) return true;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }
    std::string log_of(const std::string& name) {
        auto path = dir.path() / ("worker-" + name + ".log");
        return std::filesystem::exists(path) ? testsupport::read_file(path) : std::string();
    }
};

TEST_F(WorkerE2E, TextBinaryEmptyAndUnknownFields) {
    auto w = start("w1");
    put("t.txt", "hello, world\n");
    put("e.bin", "");
    std::string bin;
    for (int i = 0; i < 50000; ++i) bin.push_back(static_cast<char>((i * 2654435761u) >> 11));
    put("b.bin", bin);
    add("file_id text1 storage_key t.txt colour blue content_type image/png name x.png owner u7");
    add("file_id empty1 storage_key e.bin");
    add("file_id bin1 storage_key b.bin");
    EXPECT_EQ(wait_final("text1"), "done") << log_of("w1");
    EXPECT_EQ(field("text1", "extracted_text"), "hello, world");
    EXPECT_EQ(field("text1", "content_type"), "text/plain");
    EXPECT_EQ(field("text1", "declared_content_type"), "image/png");
    EXPECT_EQ(field("text1", "owner"), "u7");
    EXPECT_EQ(field("text1", "name"), "x.png");
    EXPECT_EQ(field("text1", "storage_key"), "t.txt");
    EXPECT_EQ(field("text1", "attempts"), "1");
    EXPECT_EQ(field("text1", "worker"), "w1");
    EXPECT_FALSE(field("text1", "pipeline_version").empty());
    EXPECT_FALSE(field("text1", "finished_at").empty());
    EXPECT_EQ(wait_final("empty1"), "done");
    EXPECT_EQ(field("empty1", "size_bytes"), "0");
    EXPECT_EQ(field("empty1", "content_hash"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(wait_final("bin1"), "done");
    EXPECT_EQ(field("bin1", "extraction_status"), "not_applicable");
    EXPECT_EQ(field("bin1", "thumbnail_status"), "not_applicable");
    // processing, then the final status, each in the results stream.
    std::string results = redis.cli("XRANGE ingest:results - +");
    EXPECT_NE(results.find("processing"), std::string::npos);
    EXPECT_EQ(redis.cli("XPENDING ingest:uploads ingestd").substr(0, 1), "0");
}

TEST_F(WorkerE2E, StorageFailuresAndBadEvents) {
    auto w = start("w1");
    put("t.txt", "hello, world\n");
    TempDir outside;
    testsupport::write_file(outside.path() / "secret", "secret\n");
    std::filesystem::create_symlink(outside.path() / "secret", store / "out.blob");
    std::filesystem::create_symlink(store / "t.txt", store / "in.blob");
    add("file_id miss1 storage_key nothere.blob");
    add("file_id symout storage_key out.blob");
    add("file_id symin storage_key in.blob");
    add("file_id trav1 storage_key ../../etc/passwd");
    add("file_id size1 storage_key t.txt size 999");
    add("file_id hash1 storage_key t.txt sha256 " + std::string(64, '0'));
    add("file_id ok1 storage_key t.txt size 13 sha256 "
        "853ff93762a06ddbf722c4ebe9ddd66d8f63ddaea97f521c3ecc20da7c976020");
    add("storage_key t.txt");
    add("file_id 'bad id!' storage_key t.txt");
    std::map<std::string, std::string> want = {{"miss1", "storage_missing"},  {"symout", "not_regular_file"},
                                               {"symin", "not_regular_file"}, {"trav1", "invalid_event"},
                                               {"size1", "size_mismatch"},    {"hash1", "hash_mismatch"}};
    for (const auto& [id, code] : want) {
        EXPECT_EQ(wait_final(id), "failed") << id;
        EXPECT_EQ(field(id, "error_code"), code) << id;
        EXPECT_FALSE(field(id, "error").empty()) << id;
        EXPECT_EQ(field(id, "content_hash"), "") << id << ": a failed file carries no results";
    }
    EXPECT_EQ(wait_final("ok1"), "done");
    for (int i = 0; i < 100 && redis.cli("XLEN ingest:uploads:dead") != "2"; ++i) std::this_thread::sleep_for(50ms);
    EXPECT_EQ(redis.cli("XLEN ingest:uploads:dead"), "2");
    EXPECT_NE(redis.cli("XRANGE ingest:uploads:dead - +").find("dead_reason"), std::string::npos);
    for (int i = 0; i < 100 && redis.cli("XPENDING ingest:uploads ingestd").substr(0, 1) != "0"; ++i)
        std::this_thread::sleep_for(50ms);
    EXPECT_EQ(redis.cli("XPENDING ingest:uploads ingestd").substr(0, 1), "0");
}

TEST_F(WorkerE2E, TwoWorkersShare200EventsEachProcessedOnce) {
    for (int i = 0; i < 200; ++i) put("f" + std::to_string(i) + ".txt", "file number " + std::to_string(i) + "\n");
    std::string script;
    for (int i = 0; i < 200; ++i) {
        script +=
            "XADD ingest:uploads * file_id s" + std::to_string(i) + " storage_key f" + std::to_string(i) + ".txt\n";
    }
    testsupport::write_file(dir.path() / "events.txt", script);
    auto a = start("a");
    auto b = start("b");
    ASSERT_TRUE(wait_blocked_readers(2)) << log_of("a") << log_of("b");
    testsupport::run_command("redis-cli -p " + std::to_string(redis.port()) + " < " +
                             (dir.path() / "events.txt").string() + " >/dev/null");
    for (int i = 0; i < 200; ++i) {
        ASSERT_EQ(wait_final("s" + std::to_string(i)), "done") << i;
    }
    std::string results = redis.cli("--no-raw XRANGE ingest:results - +");
    std::map<std::string, int> finals;
    std::set<std::string> workers;
    for (int i = 0; i < 200; ++i) workers.insert(field("s" + std::to_string(i), "worker"));
    auto out = testsupport::run_command("redis-cli -p " + std::to_string(redis.port()) +
                                        " --csv XRANGE ingest:results - + | tr ',' '\\n' | grep -c '\"done\"'");
    EXPECT_EQ(std::stoi(out), 200) << "each file committed exactly once";
    EXPECT_EQ(workers.size(), 2u) << "both workers took part";
    EXPECT_EQ(redis.cli("XPENDING ingest:uploads ingestd").substr(0, 1), "0");
}

TEST_F(WorkerE2E, SigtermExitsZeroAfterFinishing) {
    auto w = start("w1");
    put("t.txt", "x\n");
    add("file_id t1 storage_key t.txt");
    EXPECT_EQ(wait_final("t1"), "done");
    w->signal(SIGTERM);
    EXPECT_EQ(w->wait(10s), 0) << log_of("w1");
}

TEST_F(WorkerE2E, JsonLogsCarryFileIdAndDuration) {
    env["INGEST_LOG_FORMAT"] = "json";
    auto w = start("w1");
    put("t.txt", "x\n");
    add("file_id j1 storage_key t.txt");
    EXPECT_EQ(wait_final("j1"), "done");
    std::this_thread::sleep_for(100ms);
    std::string log = log_of("w1");
    EXPECT_NE(log.find("\"file_id\":\"j1\""), std::string::npos) << log;
    EXPECT_NE(log.find("\"duration_ms\":"), std::string::npos) << log;
    EXPECT_NE(log.find("\"event_id\":"), std::string::npos) << log;
}

TEST_F(WorkerE2E, WaitsForRedisAndRecreatesGroup) {
    auto w = start("w1");
    // The worker must have created the group (after its helpers warmed up) and be reading
    // before the group is destroyed under it.
    auto end = std::chrono::steady_clock::now() + 60s;
    while (log_of("w1").find("consumer group ready") == std::string::npos && std::chrono::steady_clock::now() < end) {
        std::this_thread::sleep_for(50ms);
    }
    ASSERT_NE(log_of("w1").find("consumer group ready"), std::string::npos) << log_of("w1");
    std::this_thread::sleep_for(300ms);
    redis.cli("XGROUP DESTROY ingest:uploads ingestd");
    put("t.txt", "x\n");
    add("file_id g1 storage_key t.txt");
    EXPECT_EQ(wait_final("g1"), "done") << log_of("w1");
    EXPECT_NE(log_of("w1").find("recreated"), std::string::npos);
}

} // namespace

namespace {

TEST_F(WorkerE2E, IdenticalBytesReuseResultsUnderTheNewId) {
    INGEST_CORPUS_FILE(pdf, "pdf/text/TAMReview.pdf");
    auto w = start("w1");
    std::filesystem::copy_file(pdf, store / "a.pdf");
    std::filesystem::copy_file(pdf, store / "b.pdf");
    add("file_id first storage_key a.pdf");
    ASSERT_EQ(wait_final("first", 120s), "done") << log_of("w1");
    auto t0 = std::chrono::steady_clock::now();
    add("file_id second storage_key b.pdf");
    ASSERT_EQ(wait_final("second", 120s), "done");
    EXPECT_EQ(field("second", "deduplicated_from"), "first");
    EXPECT_NE(log_of("w1").find("file_id=second"), std::string::npos);
    EXPECT_NE(log_of("w1").find("deduplicated_from=first"), std::string::npos) << log_of("w1");
    EXPECT_EQ(field("second", "extracted_text"), field("first", "extracted_text"));
    EXPECT_EQ(field("second", "page_count"), field("first", "page_count"));
    std::string key = field("second", "thumbnail_144_key");
    EXPECT_EQ(key, "thumbnails/second/144.webp");
    EXPECT_EQ(testsupport::read_file(store / key), testsupport::read_file(store / field("first", "thumbnail_144_key")));
    EXPECT_LT(std::stoi(field("second", "duration_ms")), std::stoi(field("first", "duration_ms")) / 5)
        << "reuse must be far cheaper than the first run";
    (void)t0;
    // A changed pipeline (here: a different text-only request of a file whose steps differ) recomputes.
    redis.cli("HSET ingest:file:first pipeline_version other");
    std::filesystem::copy_file(pdf, store / "c.pdf");
    add("file_id third storage_key c.pdf");
    ASSERT_EQ(wait_final("third", 120s), "done");
    EXPECT_EQ(field("third", "deduplicated_from"), "");
}

TEST_F(WorkerE2E, ReuseOffRecomputesIdenticalBytesAndStillIndexesThem) {
    INGEST_CORPUS_FILE(pdf, "pdf/text/TAMReview.pdf");
    env["INGEST_REUSE"] = "off";
    auto w = start("w1");
    std::filesystem::copy_file(pdf, store / "a.pdf");
    std::filesystem::copy_file(pdf, store / "b.pdf");
    add("file_id first storage_key a.pdf");
    ASSERT_EQ(wait_final("first", 120s), "done") << log_of("w1");
    add("file_id second storage_key b.pdf");
    ASSERT_EQ(wait_final("second", 120s), "done");
    EXPECT_EQ(field("second", "deduplicated_from"), "") << "INGEST_REUSE=off computes every file";
    EXPECT_EQ(field("second", "extracted_text"), field("first", "extracted_text"));
    // Workers that do reuse still find what this one finished.
    EXPECT_EQ(redis.cli("GET ingest:hash:" + field("second", "content_hash")), "second");
}

} // namespace

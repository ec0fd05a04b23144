// End to end: real redis-server, real `ingestd worker` processes, real files (a scanned PDF
// made at run time for the reuse tests, so none of this needs the corpus). Every test runs on
// both stores (the value parameter): a folder, and s3rver on loopback with uploads by boto3.
#include "tests/support/generated_file.hpp"
#include "tests/support/worker_fixture.hpp"

#include <csignal>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;
using testsupport::StoreKind;
using testsupport::TempDir;

struct WorkerE2E : ::testing::TestWithParam<StoreKind> {
    testsupport::WorkerFixture fx;

    void SetUp() override {
        std::string why;
        if (!fx.use_store(GetParam(), &why)) GTEST_SKIP() << why;
        fx.env()["INGEST_CLAIM_IDLE_MS"] = "5000";
    }

    std::string field(const std::string& id, const std::string& f) { return fx.field(id, f); }
    std::string xlen(const std::string& key) { return std::to_string(fx.redis().command({"XLEN", key}).integer); }
    // Both workers wait in a blocking XREADGROUP (redis 7.0 adds a consumer to the group only
    // when an entry is first delivered to it, so XINFO CONSUMERS cannot tell); until then a
    // fast peer can take every event before the other asks.
    bool wait_blocked_readers(int n) {
        return eventually(20s, [&] { return fx.blocked_clients() >= n; });
    }
};

TEST_P(WorkerE2E, TextBinaryEmptyAndUnknownFields) {
    fx.start("w1");
    fx.put("t.txt", "hello, world\n");
    fx.put("e.bin", "");
    std::string bin;
    for (int i = 0; i < 50000; ++i) bin.push_back(static_cast<char>((i * 2654435761u) >> 11));
    fx.put("b.bin", bin);
    fx.submit("text1", "t.txt",
              {{"colour", "blue"}, {"content_type", "image/png"}, {"name", "x.png"}, {"owner", "u7"}});
    fx.submit("empty1", "e.bin");
    fx.submit("bin1", "b.bin");
    EXPECT_EQ(fx.wait_final("text1"), "done");
    EXPECT_EQ(field("text1", "extracted_text"), "hello, world\n");
    EXPECT_EQ(field("text1", "content_type"), "text/plain");
    EXPECT_EQ(field("text1", "declared_content_type"), "image/png");
    EXPECT_EQ(field("text1", "owner"), "u7");
    EXPECT_EQ(field("text1", "name"), "x.png");
    EXPECT_EQ(field("text1", "storage_key"), "t.txt");
    EXPECT_EQ(field("text1", "attempts"), "1");
    EXPECT_EQ(field("text1", "worker"), "w1");
    EXPECT_FALSE(field("text1", "pipeline_version").empty());
    EXPECT_FALSE(field("text1", "finished_at").empty());
    EXPECT_EQ(fx.wait_final("empty1"), "done");
    EXPECT_EQ(field("empty1", "size_bytes"), "0");
    EXPECT_EQ(field("empty1", "content_hash"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(fx.wait_final("bin1"), "done");
    EXPECT_EQ(field("bin1", "extraction_status"), "not_applicable");
    EXPECT_EQ(field("bin1", "thumbnail_status"), "not_applicable");
    // processing, then the final status, each in the results stream.
    EXPECT_EQ(fx.results_count("processing")["text1"], 1);
    EXPECT_EQ(fx.results_count("done")["text1"], 1);
    EXPECT_TRUE(eventually(10s, [&] { return fx.pending() == 0; })) << fx.pending();
}

TEST_P(WorkerE2E, StorageFailuresAndBadEvents) {
    fx.start("w1");
    fx.put("t.txt", "hello, world\n");
    std::map<std::string, std::string> want = {{"miss1", "storage_missing"},
                                               {"trav1", "invalid_event"},
                                               {"size1", "size_mismatch"},
                                               {"hash1", "hash_mismatch"}};
    TempDir outside;
    if (GetParam() == StoreKind::filesystem) { // an object store has no symlinks
        testsupport::write_file(outside.path() / "secret", "secret\n");
        std::filesystem::create_symlink(outside.path() / "secret", fx.store() / "out.blob");
        std::filesystem::create_symlink(fx.store() / "t.txt", fx.store() / "in.blob");
        fx.submit("symout", "out.blob");
        fx.submit("symin", "in.blob");
        want["symout"] = want["symin"] = "not_regular_file";
    }
    fx.submit("miss1", "nothere.blob");
    fx.submit("trav1", "../../etc/passwd");
    fx.submit("size1", "t.txt", {{"size", "999"}});
    fx.submit("hash1", "t.txt", {{"sha256", std::string(64, '0')}});
    fx.submit("ok1", "t.txt",
              {{"size", "13"}, {"sha256", "853ff93762a06ddbf722c4ebe9ddd66d8f63ddaea97f521c3ecc20da7c976020"}});
    fx.add({{"storage_key", "t.txt"}});
    fx.submit("bad id!", "t.txt");
    for (const auto& [id, code] : want) {
        EXPECT_EQ(fx.wait_final(id), "failed") << id;
        EXPECT_EQ(field(id, "error_code"), code) << id;
        EXPECT_FALSE(field(id, "error").empty()) << id;
        EXPECT_EQ(field(id, "content_hash"), "") << id << ": a failed file carries no results";
    }
    EXPECT_EQ(fx.wait_final("ok1"), "done");
    EXPECT_TRUE(eventually(5s, [&] { return xlen("ingest:uploads:dead") == "2"; }))
        << xlen("ingest:uploads:dead") << " dead letters";
    jobs::Reply dead = fx.redis().command({"XRANGE", "ingest:uploads:dead", "-", "+"});
    ASSERT_FALSE(dead.elements.empty());
    bool has_reason = false;
    for (const auto& [k, v] : dead.elements[0].elements.at(1).as_pairs()) has_reason |= k == "dead_reason";
    EXPECT_TRUE(has_reason);
    EXPECT_TRUE(eventually(5s, [&] { return fx.pending() == 0; })) << fx.pending() << " pending";
}

TEST_P(WorkerE2E, TwoWorkersShare200EventsEachProcessedOnce) {
    std::vector<testsupport::Fields> events;
    for (int i = 0; i < 200; ++i) {
        fx.put("f" + std::to_string(i) + ".txt", "file number " + std::to_string(i) + "\n");
        events.push_back({{"file_id", "s" + std::to_string(i)}, {"storage_key", "f" + std::to_string(i) + ".txt"}});
    }
    fx.start("a");
    fx.start("b");
    ASSERT_TRUE(wait_blocked_readers(2));
    fx.add_all(events);
    for (int i = 0; i < 200; ++i) {
        ASSERT_EQ(fx.wait_final("s" + std::to_string(i), 60s), "done") << i;
    }
    std::set<std::string> workers;
    for (int i = 0; i < 200; ++i) workers.insert(field("s" + std::to_string(i), "worker"));
    const auto done = fx.results_count("done");
    int commits = 0;
    for (const auto& [id, n] : done) commits += n;
    EXPECT_EQ(done.size(), 200u) << "every file committed";
    EXPECT_EQ(commits, 200) << "each file committed exactly once";
    EXPECT_EQ(workers.size(), 2u) << "both workers took part";
    EXPECT_TRUE(eventually(10s, [&] { return fx.pending() == 0; })) << fx.pending();
}

TEST_P(WorkerE2E, SigtermExitsZeroAfterFinishing) {
    auto& w = fx.start("w1");
    fx.put("t.txt", "x\n");
    fx.submit("t1", "t.txt");
    EXPECT_EQ(fx.wait_final("t1"), "done");
    w.signal(SIGTERM);
    EXPECT_EQ(w.wait(10s), 0);
}

TEST_P(WorkerE2E, JsonLogsCarryFileIdAndDuration) {
    fx.env()["INGEST_LOG_FORMAT"] = "json";
    fx.start("w1");
    fx.put("t.txt", "x\n");
    fx.submit("j1", "t.txt");
    EXPECT_EQ(fx.wait_final("j1"), "done");
    // The line that ends the job: written after the commit, so awaited rather than read at once.
    std::string line;
    const bool logged = eventually(10s, [&] {
        std::istringstream log(fx.log_of("w1"));
        while (std::getline(log, line)) {
            if (line.find("\"file_id\":\"j1\"") != std::string::npos &&
                line.find("\"duration_ms\":") != std::string::npos)
                return true;
        }
        return false;
    });
    ASSERT_TRUE(logged) << "no JSON line with file_id j1 and duration_ms";
    EXPECT_EQ(line.front(), '{') << line;
    EXPECT_NE(line.find("\"event_id\":"), std::string::npos) << line;
}

TEST_P(WorkerE2E, WaitsForRedisAndRecreatesGroup) {
    fx.start("w1");
    // The worker must have created the group (after its helpers warmed up) and be waiting in
    // its blocking read before the group is destroyed under it.
    ASSERT_TRUE(fx.wait_for_log("w1", "consumer group ready", 60s));
    ASSERT_TRUE(wait_blocked_readers(1));
    fx.redis().command({"XGROUP", "DESTROY", "ingest:uploads", "ingestd"});
    fx.put("t.txt", "x\n");
    fx.submit("g1", "t.txt");
    EXPECT_EQ(fx.wait_final("g1"), "done");
    EXPECT_NE(fx.log_of("w1").find("recreated"), std::string::npos);
}

TEST_P(WorkerE2E, IdenticalBytesReuseResultsUnderTheNewId) {
    const std::string pdf = testsupport::scanned_text_pdf(fx.dir(), 1);
    fx.start("w1");
    fx.put("a.pdf", pdf);
    fx.put("b.pdf", pdf);
    fx.submit("first", "a.pdf");
    ASSERT_EQ(fx.wait_final("first", 120s), "done");
    ASSERT_EQ(field("first", "extraction_status"), "done");
    EXPECT_NE(field("first", "extracted_text").find("quick brown fox"), std::string::npos);
    fx.submit("second", "b.pdf");
    ASSERT_EQ(fx.wait_final("second", 120s), "done");
    EXPECT_EQ(field("second", "deduplicated_from"), "first");
    EXPECT_TRUE(fx.wait_for_log("w1", "deduplicated_from=first", 10s));
    EXPECT_NE(fx.log_of("w1").find("file_id=second"), std::string::npos);
    EXPECT_EQ(field("second", "extracted_text"), field("first", "extracted_text"));
    EXPECT_EQ(field("second", "page_count"), field("first", "page_count"));
    std::string key = field("second", "thumbnail_144_key");
    EXPECT_EQ(key, "thumbnails/second/144.webp");
    EXPECT_FALSE(fx.read_output(key).empty());
    EXPECT_EQ(fx.read_output(key), fx.read_output(field("first", "thumbnail_144_key")));
    EXPECT_LT(std::stoi(field("second", "duration_ms")), std::stoi(field("first", "duration_ms")) / 5)
        << "reuse must be far cheaper than the first run";
    // A changed pipeline (here: a different text-only request of a file whose steps differ) recomputes.
    fx.redis().command({"HSET", "ingest:file:first", "pipeline_version", "other"});
    fx.put("c.pdf", pdf);
    fx.submit("third", "c.pdf");
    ASSERT_EQ(fx.wait_final("third", 120s), "done");
    EXPECT_EQ(field("third", "deduplicated_from"), "");
}

TEST_P(WorkerE2E, ReuseOffRecomputesIdenticalBytesAndStillIndexesThem) {
    const std::string pdf = testsupport::scanned_text_pdf(fx.dir(), 1);
    fx.env()["INGEST_REUSE"] = "off";
    fx.start("w1");
    fx.put("a.pdf", pdf);
    fx.put("b.pdf", pdf);
    fx.submit("first", "a.pdf");
    ASSERT_EQ(fx.wait_final("first", 120s), "done");
    fx.submit("second", "b.pdf");
    ASSERT_EQ(fx.wait_final("second", 120s), "done");
    EXPECT_EQ(field("second", "deduplicated_from"), "") << "INGEST_REUSE=off computes every file";
    EXPECT_EQ(field("second", "extracted_text"), field("first", "extracted_text"));
    // Workers that do reuse still find what this one finished.
    EXPECT_EQ(fx.redis().command({"GET", "ingest:hash:" + field("second", "content_hash")}).str, "second");
}

// Issue 20: a scan's thumbnails are committed as soon as they are made, while its OCR goes on
// (status processing, extraction pending); the final commit then has both steps, and the
// early commit announced nothing (one processing, one done in the results stream).
TEST_P(WorkerE2E, AScansThumbnailsAreCommittedBeforeItsOcrEnds) {
    const std::string pdf = testsupport::scanned_text_pdf(fx.dir(), 3);
    fx.env()["INGEST_CONCURRENCY"] = "1"; // one core's OCR: seconds after the thumbnails
    fx.start("w1");
    fx.put("scan.pdf", pdf);
    fx.submit("scan", "scan.pdf");
    std::map<std::string, std::string> seen;
    ASSERT_TRUE(eventually(60s, [&] {
        const jobs::Reply r = fx.redis().command(
            {"HMGET", "ingest:file:scan", "thumbnail_status", "status", "extraction_status", "thumbnail_288_key"});
        if (r.elements.size() != 4 || r.elements[0].str != "done") return false;
        seen = {{"status", r.elements[1].str}, {"extraction", r.elements[2].str}, {"key", r.elements[3].str}};
        return true;
    }));
    EXPECT_EQ(seen["status"], "processing") << "thumbnails only with the final commit";
    EXPECT_EQ(seen["extraction"], "pending");
    EXPECT_EQ(seen["key"], "thumbnails/scan/288.webp");
    EXPECT_FALSE(fx.read_output(seen["key"]).empty()) << "the early commit names a thumbnail already written";
    ASSERT_EQ(fx.wait_final("scan", 120s), "done");
    EXPECT_EQ(field("scan", "extraction_status"), "done");
    EXPECT_EQ(field("scan", "thumbnail_status"), "done");
    EXPECT_EQ(field("scan", "ocr_pages"), "3");
    EXPECT_NE(field("scan", "extracted_text").find("quick brown fox"), std::string::npos);
    EXPECT_EQ(field("scan", "error_code"), "");
    EXPECT_EQ(fx.results_count("processing")["scan"], 1);
    EXPECT_EQ(fx.results_count("done")["scan"], 1);
}

// Issue 20: a small file submitted behind scans that wait for OCR is done first: the fast
// lane looks past them (read ahead), while the ordinary thread works through the scans.
TEST_P(WorkerE2E, ASmallFileBehindQueuedScansFinishesFirst) {
    const std::string pdf = testsupport::scanned_text_pdf(fx.dir(), 2);
    fx.env()["INGEST_CONCURRENCY"] = "1";
    fx.env()["INGEST_LOOKAHEAD"] = "8"; // read ahead past the scans
    for (int i = 0; i < 4; ++i) {
        fx.put("scan" + std::to_string(i) + ".pdf", pdf + "% copy " + std::to_string(i) + "\n");
        fx.submit("scan" + std::to_string(i), "scan" + std::to_string(i) + ".pdf");
    }
    fx.put("note.txt", "a small note\n");
    fx.submit("note", "note.txt");
    fx.start("w1");
    ASSERT_EQ(fx.wait_final("note", 60s), "done");
    int scans_final = 0;
    for (int i = 0; i < 4; ++i) {
        const std::string st = field("scan" + std::to_string(i), "status");
        scans_final += st == "done" || st == "failed" ? 1 : 0;
    }
    EXPECT_LE(scans_final, 1) << "the note waited for the scans";
    for (int i = 0; i < 4; ++i) EXPECT_EQ(fx.wait_final("scan" + std::to_string(i), 180s), "done") << i;
    EXPECT_EQ(field("note", "extracted_text"), "a small note\n");
    EXPECT_TRUE(eventually(10s, [&] { return fx.pending() == 0; })) << fx.pending();
}

INSTANTIATE_TEST_SUITE_P(Stores, WorkerE2E, ::testing::Values(StoreKind::filesystem, StoreKind::s3),
                         testsupport::store_name);

} // namespace

// Delivery under faults (issue 5): real redis-server processes (with AOF), real `ingestd
// worker` processes killed, signalled and starved of Redis. Every scenario bounds its waits
// and prints its figures (events, kills, commits, duplicates, lost). Slow jobs are scanned
// pages made at run time (OCR takes seconds a page), so nothing here needs the corpus.
#include "jobs/queue.hpp"
#include "tests/delivery/delivery_fixture.hpp"
#include "tests/support/process_info.hpp"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using delivery::chaos_seed;
using delivery::DeliveryTest;
using delivery::Figures;
using delivery::http_status;
using delivery::k_stream;
using testsupport::eventually;
using testsupport::WorkerProcess;

// The scenarios that run on both stores (the value parameter): a folder, and s3rver.
struct DeliveryStores : DeliveryTest, ::testing::WithParamInterface<testsupport::StoreKind> {
    void SetUp() override {
        DeliveryTest::SetUp();
        std::string why;
        if (!fx.use_store(GetParam(), &why)) GTEST_SKIP() << why;
    }
};

// 3 workers, 1000 mixed small events, a random worker SIGKILLed and restarted 30 times, each
// time after a random amount of progress. The schedule comes from a seed that the test prints;
// INGESTD_CHAOS_SEED=<seed> replays it.
TEST_P(DeliveryStores, WorkersKilledThirtyTimesLoseNothingAndCommitOnce) {
    const unsigned seed = chaos_seed();
    std::cout << "[ seed ] INGESTD_CHAOS_SEED=" << seed << " replays this schedule\n";
    RecordProperty("chaos_seed", std::to_string(seed));
    const auto t0 = Clock::now();
    // A kill about every second: on a loaded machine an entry can be held (in flight, or read
    // ahead for the fast lane) by five killed workers in a row, or lose its lease while helpers
    // warm up, and then rightly give up at the default limit of 5. What this test checks is
    // that none is lost or committed twice; giving up is EntryThatKillsItsWorkerEndsDeadLettered's.
    fx.env()["INGEST_MAX_DELIVERIES"] = "12";
    auto ids = submit_mixed(1000, "chaos");
    const std::vector<std::string> pool = {"a", "b", "c"};
    for (const auto& w : pool) fx.start(w);
    std::mt19937 rng(seed);
    std::size_t kills = 0;
    while (kills < 30) {
        // Kill once 3 to 24 more results entries have appeared: always in the middle of work.
        const long long target = results_len() + 3 + static_cast<long long>(rng() % 22);
        ASSERT_TRUE(eventually(60s, [&] { return results_len() >= target; }))
            << "no progress after " << kills << " kills (seed " << seed << ")";
        const std::string& w = pool[rng() % pool.size()];
        fx.kill(w);
        ++kills;
        fx.start(w);
    }
    bool finished = eventually(180s, [&] { return fx.all_final(ids); });
    Figures f = figures(ids, kills);
    report(f, t0);
    EXPECT_TRUE(finished) << "seed " << seed;
    expect_all_done_once(ids, f);
    for (const auto& w : pool) EXPECT_TRUE(fx.worker(w).alive()) << "worker " << w << " exited";
}

INSTANTIATE_TEST_SUITE_P(Stores, DeliveryStores,
                         ::testing::Values(testsupport::StoreKind::filesystem, testsupport::StoreKind::s3),
                         testsupport::store_name);

// Redis SIGKILLed in the middle of a run and restarted from its append-only file.
TEST_F(DeliveryTest, RedisCrashRestartedFromAofLosesNothing) {
    const auto t0 = Clock::now();
    auto ids = submit_mixed(300, "crash");
    fx.start("a");
    fx.start("b");
    ASSERT_TRUE(eventually(60s, [&] { return fx.results_count("final").size() >= 50; }));
    const std::size_t before_crash = fx.results_count("final").size();
    const std::size_t log_a = fx.log_of("a").size(), log_b = fx.log_of("b").size();
    fx.server().kill_hard();
    // Redis comes back only once a worker has met its absence (a failed read or commit).
    EXPECT_TRUE(eventually(30s, [&] {
        return fx.log_of("a").find("retrying", log_a) != std::string::npos ||
               fx.log_of("b").find("retrying", log_b) != std::string::npos;
    })) << "no worker noticed that Redis was gone";
    fx.server().start();
    EXPECT_LT(before_crash, ids.size()) << "the crash came after the run";
    bool finished = eventually(120s, [&] { return fx.all_final(ids); });
    Figures f = figures(ids, 0);
    report(f, t0);
    EXPECT_TRUE(finished);
    expect_all_done_once(ids, f);
    EXPECT_TRUE(fx.worker("a").alive());
    EXPECT_TRUE(fx.worker("b").alive());
}

// A job much longer than INGEST_CLAIM_IDLE_MS keeps its lease: started and committed once.
TEST_F(DeliveryTest, JobSlowerThanClaimTimeoutIsNotTakenTwice) {
    const auto t0 = Clock::now();
    put_slow_pdf("slow.pdf", 4);
    fx.start("s1", {{"INGEST_CONCURRENCY", "1"}});
    fx.start("s2", {{"INGEST_CONCURRENCY", "1"}});
    fx.submit("slow1", "slow.pdf");
    ASSERT_EQ(fx.wait_final("slow1", 240s), "done");
    Figures f = figures({"slow1"}, 0);
    report(f, t0);
    const long long ms = std::stoll("0" + meta("slow1", "duration_ms"));
    EXPECT_GT(ms, 3000) << "the job was not slower than three claim timeouts";
    EXPECT_EQ(meta("slow1", "extraction_method"), "ocr");
    EXPECT_EQ(fx.results_count("processing")["slow1"], 1) << "started more than once";
    EXPECT_EQ(f.commits, 1u);
    EXPECT_EQ(meta("slow1", "attempts"), "1");
    EXPECT_EQ(fx.log_of("s1").find("reclaimed an idle entry"), std::string::npos);
    EXPECT_EQ(fx.log_of("s2").find("reclaimed an idle entry"), std::string::npos);
}

// SIGTERM: the jobs in flight finish, the worker exits 0, the rest is left for another worker.
TEST_F(DeliveryTest, SigtermFinishesInFlightJobsAndExitsZero) {
    const auto t0 = Clock::now();
    put_slow_pdf("drain.pdf", 2);
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) {
        fx.put_copy("drain" + std::to_string(i) + ".pdf", fx.store() / "drain.pdf");
        fx.submit("drain" + std::to_string(i), "drain" + std::to_string(i) + ".pdf");
        ids.push_back("drain" + std::to_string(i));
    }
    auto small = submit_mixed(20, "after");
    ids.insert(ids.end(), small.begin(), small.end());
    WorkerProcess& d = fx.start("d");
    ASSERT_TRUE(fx.wait_status("drain0", "processing", 60s));
    std::vector<std::string> in_flight;
    for (const auto& id : ids) {
        if (meta(id, "status") == "processing") in_flight.push_back(id);
    }
    d.signal(SIGTERM);
    const int code = d.wait(75s);
    EXPECT_EQ(code, 0) << "exit code (-1: still running 75 s after SIGTERM)";
    for (const auto& id : in_flight) EXPECT_EQ(meta(id, "status"), "done") << id << " was in flight at SIGTERM";
    EXPECT_NE(fx.log_of("d").find("worker stopped"), std::string::npos);
    fx.start("e");
    bool finished = eventually(180s, [&] { return fx.all_final(ids); });
    Figures f = figures(ids, 0);
    report(f, t0);
    EXPECT_TRUE(finished);
    expect_all_done_once(ids, f);
}

// SIGTERM with jobs that cannot finish within INGEST_SHUTDOWN_GRACE_S: at the end of the
// grace their entries are handed back (claimable at once), so the next worker starts them
// at once although the claim timeout is a minute; each is still committed once.
TEST_F(DeliveryTest, SigtermPastTheGraceHandsLongJobsBackAtOnce) {
    put_slow_pdf("long.pdf", 6);
    const std::vector<std::string> ids = {"long0", "long1"};
    for (const auto& id : ids) {
        fx.put_copy(id + ".pdf", fx.store() / "long.pdf");
        fx.submit(id, id + ".pdf");
    }
    const std::map<std::string, std::string> env = {{"INGEST_CLAIM_IDLE_MS", "60000"},
                                                    {"INGEST_SHUTDOWN_GRACE_S", "1"}};
    WorkerProcess& a = fx.start("a", env);
    ASSERT_TRUE(eventually(
        60s, [&] { return meta("long0", "status") == "processing" && meta("long1", "status") == "processing"; }));
    a.signal(SIGTERM);
    EXPECT_EQ(a.wait(20s), 0);
    EXPECT_NE(fx.log_of("a").find("entries handed back"), std::string::npos) << fx.log_of("a");
    const auto t0 = Clock::now();
    fx.start("b", env);
    ASSERT_TRUE(eventually(30s, [&] { return meta("long0", "worker") == "b" && meta("long1", "worker") == "b"; }));
    const double took = std::chrono::duration<double>(Clock::now() - t0).count();
    std::cout << "the next worker started both abandoned jobs " << took << " s after it started\n";
    EXPECT_LT(took, 5.0) << "not handed back: the claim timeout is 60 s";
    ASSERT_TRUE(eventually(240s, [&] { return fx.all_final(ids); }));
    Figures f = figures(ids, 0);
    expect_all_done_once(ids, f);
}

// A second signal ends the worker at once; its job stays pending for another worker.
TEST_F(DeliveryTest, SecondSignalExitsAtOnceLeavingTheEntryPending) {
    put_slow_pdf("slow.pdf", 4);
    fx.submit("twice1", "slow.pdf");
    WorkerProcess& w = fx.start("w", {{"INGEST_CONCURRENCY", "1"}});
    ASSERT_TRUE(fx.wait_status("twice1", "processing", 60s));
    w.signal(SIGTERM);
    ASSERT_TRUE(fx.wait_for_log("w", "signal received: draining", 10s)) << "the first signal was not handled";
    const auto t = Clock::now();
    w.signal(SIGTERM);
    w.wait(10s);
    EXPECT_LT(Clock::now() - t, 3s);
    EXPECT_FALSE(w.alive());
    EXPECT_EQ(fx.pending(), 1);
    EXPECT_EQ(meta("twice1", "status"), "processing");
    EXPECT_EQ(fx.results_count("final")["twice1"], 0);
}

// An entry whose worker dies every time ends in <stream>:dead after INGEST_MAX_DELIVERIES;
// `dead list` shows it and `dead retry` brings it back to be finished.
TEST_F(DeliveryTest, EntryThatKillsItsWorkerEndsDeadLetteredAndRetryFinishesIt) {
    const auto t0 = Clock::now();
    put_slow_pdf("poison.pdf", 2);
    const std::string entry = fx.submit("poison1", "poison.pdf");
    const std::map<std::string, std::string> extra = {{"INGEST_MAX_DELIVERIES", "3"}, {"INGEST_CONCURRENCY", "1"}};
    std::size_t kills = 0;
    for (int k = 1; k <= 6; ++k) {
        const std::string name = "p" + std::to_string(k);
        fx.start(name, extra);
        if (!eventually(20s, [&] { return fx.pending_owner() == name; })) {
            fx.kill(name);
            break; // it did not take the entry again: dead-lettered
        }
        fx.kill(name);
        ++kills;
        // The next worker can claim the entry as soon as it starts.
        ASSERT_TRUE(eventually(10s, [&] { return pending_idle_for(1000); }));
    }
    EXPECT_GE(kills, 3u) << "killed while holding the entry";
    fx.start("last", extra);
    ASSERT_EQ(fx.wait_final("poison1", 30s), "failed");
    EXPECT_EQ(meta("poison1", "error_code"), "gave_up");
    EXPECT_TRUE(eventually(5s, [&] { return fx.pending() == 0; }));
    jobs::Reply dead = cmd({"XRANGE", k_stream + ":dead", "-", "+"});
    ASSERT_EQ(dead.elements.size(), 1u);
    std::map<std::string, std::string> fields;
    for (const auto& [k, v] : dead.elements[0].elements[1].as_pairs()) fields[k] = v;
    EXPECT_EQ(fields["file_id"], "poison1");
    EXPECT_EQ(fields["storage_key"], "poison.pdf");
    EXPECT_EQ(fields["dead_source_id"], entry);
    // Each kill cost one delivery; the next one (more than 3) was dead-lettered at once.
    EXPECT_EQ(fields["dead_deliveries"], std::to_string(kills + 1));
    EXPECT_FALSE(fields["dead_reason"].empty());
    EXPECT_EQ(fx.results_count("final")["poison1"], 1);

    int status = -1;
    std::string listed = testsupport::run_ingestd("dead list", fx.env(), &status);
    EXPECT_EQ(status, 0);
    EXPECT_NE(listed.find("\"poison1\""), std::string::npos) << listed;
    std::string retried = testsupport::run_ingestd("dead retry poison1", fx.env(), &status);
    EXPECT_EQ(status, 0);
    EXPECT_NE(retried.find("\"poison1\""), std::string::npos) << retried;
    EXPECT_EQ(cmd({"XLEN", k_stream + ":dead"}).integer, 0);
    bool finished = eventually(240s, [&] { return meta("poison1", "status") == "done"; });
    Figures f = figures({"poison1"}, kills);
    report(f, t0);
    EXPECT_TRUE(finished) << "retried entry not done: " << meta("poison1", "status");
    EXPECT_EQ(f.commits, 2u) << "one gave_up, one done after the retry";
}

// `reconcile --older-than` re-appends an event lost before it reached the stream, and leaves
// alone files whose event is still undelivered or pending, or younger than the limit.
TEST_F(DeliveryTest, ReconcileReappendsLostEventsOnly) {
    const std::string old_ts = "2020-01-01T00:00:00.000Z";
    auto pending_meta = [&](const std::string& id, const std::string& ts) {
        fx.put("up/" + id + ".txt", "the text of " + id + "\n");
        cmd({"HSET", "ingest:file:" + id, "status", "pending", "storage_key", "up/" + id + ".txt", "steps",
             "text,thumbnails", "submitted_at", ts});
    };
    pending_meta("lost1", old_ts);     // no stream entry at all: lost
    pending_meta("inflight1", old_ts); // delivered to a consumer that has not acknowledged
    fx.submit("inflight1", "up/inflight1.txt");
    cmd({"XGROUP", "CREATE", k_stream, "ingestd", "0"});
    cmd({"XREADGROUP", "GROUP", "ingestd", "elsewhere", "COUNT", "1", "STREAMS", k_stream, ">"});
    pending_meta("undelivered1", old_ts); // in the stream, not yet delivered
    fx.submit("undelivered1", "up/undelivered1.txt");
    pending_meta("recent1", jobs::utc_now_rfc3339());
    cmd({"HSET", "ingest:file:done1", "status", "done", "storage_key", "up/x", "submitted_at", old_ts});
    ASSERT_EQ(fx.pending(), 1);
    const long long before = cmd({"XLEN", k_stream}).integer;

    int status = -1;
    std::string out = testsupport::run_ingestd("reconcile --older-than 600", fx.env(), &status);
    EXPECT_EQ(status, 0);
    EXPECT_NE(out.find("\"lost1\""), std::string::npos) << out;
    for (const char* id : {"undelivered1", "inflight1", "recent1", "done1"}) {
        EXPECT_EQ(out.find(std::string("\"") + id + "\""), std::string::npos) << id << " re-appended: " << out;
    }
    EXPECT_EQ(cmd({"XLEN", k_stream}).integer, before + 1);
    // Safe to run again: lost1 now has an undelivered entry.
    out = testsupport::run_ingestd("reconcile --older-than 600", fx.env(), &status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(out, "");
    EXPECT_EQ(cmd({"XLEN", k_stream}).integer, before + 1);
    fx.start("r");
    EXPECT_TRUE(fx.wait_status("lost1", "done", 60s));
    EXPECT_EQ(meta("lost1", "extracted_text"), "the text of lost1\n");
}

// Redis OOM replies are transient: the job waits and goes on, it is neither failed nor
// redelivered.
TEST_F(DeliveryTest, OomRepliesAreRetriedNotFatal) {
    fx.put("up/oom1.txt", "written once memory is back\n");
    fx.submit("oom1", "up/oom1.txt");
    cmd({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
    cmd({"CONFIG", "SET", "maxmemory", "1"});
    WorkerProcess& w = fx.start("o");
    ASSERT_TRUE(fx.wait_for_log("o", "OOM", 30s)) << "the OOM replies were not seen";
    EXPECT_TRUE(w.alive());
    EXPECT_NE(meta("oom1", "status"), "failed");
    cmd({"CONFIG", "SET", "maxmemory", "0"});
    ASSERT_EQ(fx.wait_final("oom1", 30s), "done");
    EXPECT_EQ(meta("oom1", "attempts"), "1");
    EXPECT_EQ(fx.results_count("final")["oom1"], 1);
}

// Redis down: no busy loop, /readyz 503 (healthz 200), ready again and working once it is back.
TEST_F(DeliveryTest, RedisDownNoSpinNotReadyThenRecovers) {
    const int port = testsupport::free_port();
    WorkerProcess& w = fx.start("h", {{"INGEST_HTTP_ADDR", "127.0.0.1:" + std::to_string(port)}});
    ASSERT_TRUE(eventually(30s, [&] { return http_status(port, "/readyz") == 200; }));
    fx.server().kill_hard();
    ASSERT_TRUE(eventually(15s, [&] { return http_status(port, "/readyz") == 503; })) << "still ready without Redis";
    // A measurement window, not a wait for an event: the CPU the worker burns while Redis
    // stays away.
    const long long t0 = testsupport::cpu_ticks(w.pid());
    std::this_thread::sleep_for(4s);
    const long long used = testsupport::cpu_ticks(w.pid()) - t0;
    EXPECT_LT(used, 40) << "CPU ticks in 4 s with Redis down";
    EXPECT_EQ(http_status(port, "/readyz"), 503);
    EXPECT_EQ(http_status(port, "/healthz"), 200);
    fx.server().start();
    EXPECT_TRUE(eventually(30s, [&] { return http_status(port, "/readyz") == 200; }));
    fx.put("up/back1.txt", "after the outage\n");
    fx.submit("back1", "up/back1.txt");
    EXPECT_TRUE(fx.wait_status("back1", "done", 30s));
    EXPECT_TRUE(w.alive());
}

// Trimming removes only what every group has acknowledged, and only from a long stream.
TEST_F(DeliveryTest, TrimNeverDropsUnacknowledgedOrUndeliveredEntries) {
    std::vector<std::string> ids;
    for (int i = 0; i < 60; ++i) ids.push_back(fx.submit("t" + std::to_string(i), "k"));
    cmd({"XGROUP", "CREATE", k_stream, "ingestd", "0"});
    cmd({"XGROUP", "CREATE", k_stream, "audit", "0"});
    // ingestd: 40 delivered, the first 30 acknowledged. audit: 50 delivered, entry 20 pending.
    cmd({"XREADGROUP", "GROUP", "ingestd", "c", "COUNT", "40", "STREAMS", k_stream, ">"});
    for (int i = 0; i < 30; ++i) cmd({"XACK", k_stream, "ingestd", ids[static_cast<std::size_t>(i)]});
    cmd({"XREADGROUP", "GROUP", "audit", "c", "COUNT", "50", "STREAMS", k_stream, ">"});
    for (int i = 0; i < 50; ++i) {
        if (i != 20) cmd({"XACK", k_stream, "audit", ids[static_cast<std::size_t>(i)]});
    }
    jobs::QueueNames n;
    n.consumer = "c";
    jobs::Queue q(n);
    EXPECT_EQ(q.trim(fx.redis(), 100, 0ms), 0) << "a short stream is left alone";
    EXPECT_EQ(q.trim(fx.redis(), 10, 3600s), 0) << "recent entries are kept";
    EXPECT_EQ(q.trim(fx.redis(), 10, 0ms), 20);
    jobs::Reply first = cmd({"XRANGE", k_stream, "-", "+", "COUNT", "1"});
    EXPECT_EQ(first.elements.at(0).elements.at(0).str, ids[20]);
    // Everything acknowledged everywhere: only undelivered entries stay.
    cmd({"XACK", k_stream, "audit", ids[20]});
    cmd({"XREADGROUP", "GROUP", "ingestd", "c", "COUNT", "100", "STREAMS", k_stream, ">"});
    for (int i = 30; i < 60; ++i) cmd({"XACK", k_stream, "ingestd", ids[static_cast<std::size_t>(i)]});
    EXPECT_EQ(q.trim(fx.redis(), 5, 0ms), 30); // audit has not read entries 50..59
    EXPECT_EQ(cmd({"XLEN", k_stream}).integer, 10);
}

} // namespace

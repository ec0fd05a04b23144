// Delivery under faults (issue 5): real redis-server processes (with AOF), real `ingestd
// worker` processes killed, signalled and starved of Redis. Every scenario bounds its waits
// and prints its figures (events, kills, commits, duplicates, lost).
#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/worker_process.hpp"

#include <csignal>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testsupport::RedisServer;
using testsupport::TempDir;
using testsupport::WorkerProcess;
namespace fs = std::filesystem;

const std::string k_stream = "ingest:uploads";

// Polls `pred` every 50 ms until it holds or `limit` passes; Redis being away counts as "not
// yet".
template <class Pred> bool eventually(std::chrono::milliseconds limit, Pred pred) {
    const auto end = Clock::now() + limit;
    for (;;) {
        try {
            if (pred()) return true;
        } catch (const jobs::RedisIoError&) {
        }
        if (Clock::now() >= end) return false;
        std::this_thread::sleep_for(50ms);
    }
}

// The status code of `GET path` on 127.0.0.1:port, or 0 when nothing answers.
int http_status(int port, const std::string& path) {
    return testsupport::http_get(port, path).status;
}

// User plus system CPU ticks of a process.
long long cpu_ticks(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = all.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(all.substr(close + 2));
    std::string f;
    long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> f; ++i) {
        if (i == 14) utime = std::stoll(f);
        if (i == 15) stime = std::stoll(f);
    }
    return utime + stime;
}

struct Figures {
    std::size_t events = 0, kills = 0, commits = 0, duplicates = 0, lost = 0, restarted = 0;
    std::string str() const {
        return std::to_string(events) + " events, " + std::to_string(kills) + " kills, " + std::to_string(commits) +
               " commits, " + std::to_string(duplicates) + " duplicates, " + std::to_string(lost) + " lost (" +
               std::to_string(restarted) + " started more than once)";
    }
};

struct DeliveryTest : ::testing::Test {
    std::unique_ptr<RedisServer> server = std::make_unique<RedisServer>(true); // AOF on
    TempDir dir;
    fs::path store = dir.path() / "store";
    jobs::Redis redis{jobs::parse_redis_url(server->url()), 5000ms};
    std::map<std::string, std::string> env;
    std::map<std::string, std::unique_ptr<WorkerProcess>> workers;
    std::set<std::string> names;

    void SetUp() override {
        fs::create_directories(store);
        env = {{"INGEST_REDIS_URL", server->url()},
               {"INGEST_STORAGE_ROOT", store.string()},
               {"INGEST_CONCURRENCY", "2"},
               {"INGEST_CLAIM_IDLE_MS", "1000"},
               {"INGEST_SHUTDOWN_GRACE_S", "60"},
               {"INGEST_HTTP_ADDR", "off"},
               {"OMP_THREAD_LIMIT", "1"}};
    }

    void TearDown() override {
        workers.clear();
        if (!HasFailure()) return;
        for (const auto& n : names) { // the end of each worker's log, to see why
            std::string log;
            try {
                log = testsupport::read_file(log_path(n));
            } catch (const std::exception&) {
                continue;
            }
            std::cout << "---- worker " << n << " (last lines)\n"
                      << log.substr(log.size() > 3000 ? log.size() - 3000 : 0) << "\n";
        }
    }

    fs::path log_path(const std::string& name) const { return dir.path() / ("worker-" + name + ".log"); }
    std::string log_of(const std::string& name) const { return testsupport::read_file(log_path(name)); }

    WorkerProcess& start(const std::string& name, const std::map<std::string, std::string>& extra = {}) {
        auto e = env;
        for (const auto& [k, v] : extra) e[k] = v;
        e["INGEST_CONSUMER"] = name;
        names.insert(name);
        workers[name] = std::make_unique<WorkerProcess>(e, log_path(name));
        return *workers[name];
    }
    void kill_worker(const std::string& name) {
        auto it = workers.find(name);
        if (it == workers.end()) return;
        it->second->signal(SIGKILL);
        it->second->wait(10s);
        workers.erase(it);
    }

    jobs::Reply cmd(const std::vector<std::string>& args) { return redis.command(args); }
    void put(const std::string& key, const std::string& bytes) {
        fs::create_directories((store / key).parent_path());
        testsupport::write_file(store / key, bytes);
    }
    void put_copy(const std::string& key, const fs::path& from) {
        fs::create_directories((store / key).parent_path());
        fs::copy_file(from, store / key, fs::copy_options::overwrite_existing);
    }
    std::string add(const std::string& file_id, const std::string& key) {
        return cmd({"XADD", k_stream, "*", "file_id", file_id, "storage_key", key}).str;
    }
    std::string meta(const std::string& id, const std::string& field) {
        return cmd({"HGET", "ingest:file:" + id, field}).str;
    }
    bool is_final(const std::string& id) {
        std::string st = meta(id, "status");
        return st == "done" || st == "failed";
    }
    long long pending() {
        jobs::Reply r = cmd({"XPENDING", k_stream, "ingestd"});
        return r.is_array() && !r.elements.empty() ? r.elements[0].integer : -1;
    }
    std::string pending_owner() {
        jobs::Reply r = cmd({"XPENDING", k_stream, "ingestd", "-", "+", "10"});
        if (!r.is_array() || r.elements.empty() || r.elements[0].elements.size() < 2) return "";
        return r.elements[0].elements[1].str;
    }
    // How many results entries each file id has with `status` (done/failed: "final").
    std::map<std::string, int> results_count(const std::string& status) {
        std::map<std::string, int> n;
        jobs::Reply r = cmd({"XRANGE", "ingest:results", "-", "+"});
        for (const auto& e : r.elements) {
            std::string id, st;
            for (const auto& [k, v] : e.elements.at(1).as_pairs()) {
                if (k == "file_id") id = v;
                if (k == "status") st = v;
            }
            bool match = status == "final" ? (st == "done" || st == "failed") : st == status;
            if (match) ++n[id];
        }
        return n;
    }
    Figures figures(const std::vector<std::string>& ids, std::size_t kills) {
        Figures f;
        f.events = ids.size();
        f.kills = kills;
        auto finals = results_count("final");
        auto starts = results_count("processing");
        for (const auto& id : ids) {
            if (starts[id] > 1) ++f.restarted;
            int c = finals.count(id) ? finals[id] : 0;
            f.commits += static_cast<std::size_t>(c);
            if (c > 1) ++f.duplicates;
            if (!is_final(id)) ++f.lost;
        }
        return f;
    }
    void report(const Figures& f, Clock::time_point t0) {
        double s = std::chrono::duration<double>(Clock::now() - t0).count();
        RecordProperty("figures", f.str());
        std::cout << "[figures] " << ::testing::UnitTest::GetInstance()->current_test_info()->name() << ": " << f.str()
                  << " in " << static_cast<int>(s) << " s\n";
    }
    void expect_all_done_once(const std::vector<std::string>& ids, const Figures& f) {
        EXPECT_EQ(f.lost, 0u) << f.str();
        EXPECT_EQ(f.duplicates, 0u) << f.str();
        EXPECT_EQ(f.commits, ids.size()) << f.str();
        std::size_t not_done = 0;
        std::string which;
        for (const auto& id : ids) {
            if (meta(id, "status") == "done") continue;
            ++not_done;
            which += " " + id + "=" + meta(id, "status") + "/" + meta(id, "error_code") + " (" + meta(id, "error") +
                     ", attempts " + meta(id, "attempts") + ")";
        }
        EXPECT_EQ(not_done, 0u) << "events final but not done:" << which;
        EXPECT_TRUE(eventually(15s, [&] { return pending() == 0; })) << pending() << " entries still pending";
    }

    // A mix of small files: texts of many lengths, JSON, HTML, opaque bytes, small images.
    std::vector<std::string> submit_mixed(int n, const std::string& prefix) {
        std::vector<fs::path> images;
        for (const char* rel : {"img/gif/cogs.gif", "img/gif/hopper.gif", "img/png/hopper.png", "img/png/rgba.png",
                                "img/webp/transparent.webp"}) {
            fs::path p = testsupport::corpus_file(rel);
            if (!p.empty()) images.push_back(p);
        }
        std::mt19937 rng(12345);
        std::vector<std::string> ids;
        std::vector<std::vector<std::string>> adds;
        for (int i = 0; i < n; ++i) {
            std::string id = prefix + std::to_string(i);
            std::string key = "up/" + id + ".blob";
            switch (i % 10) {
            case 6:
                put(key, "{\"n\": " + std::to_string(i) + ", \"kind\": \"json\"}\n");
                break;
            case 7:
                put(key, "<html><body><p>page " + std::to_string(i) + "</p></body></html>\n");
                break;
            case 8:
                if (!images.empty()) {
                    put_copy(key, images[static_cast<std::size_t>(i / 10) % images.size()]);
                    break;
                }
                [[fallthrough]];
            case 9: {
                std::string bytes(64 + rng() % 2000, '\0');
                for (auto& c : bytes) c = static_cast<char>(rng());
                put(key, bytes);
                break;
            }
            default: {
                std::string text;
                int lines = 1 + static_cast<int>(rng() % 200);
                for (int l = 0; l < lines; ++l) text += "line " + std::to_string(l) + " of document " + id + "\n";
                put(key, text);
            }
            }
            adds.push_back({"XADD", k_stream, "*", "file_id", id, "storage_key", key, "name", id + ".bin"});
            ids.push_back(id);
        }
        for (std::size_t i = 0; i < adds.size(); i += 200) {
            std::vector<std::vector<std::string>> batch(
                adds.begin() + static_cast<long>(i), adds.begin() + static_cast<long>(std::min(adds.size(), i + 200)));
            redis.pipeline(batch);
        }
        return ids;
    }
    bool all_final(const std::vector<std::string>& ids) {
        std::vector<std::vector<std::string>> q;
        for (const auto& id : ids) q.push_back({"HGET", "ingest:file:" + id, "status"});
        for (const auto& r : redis.pipeline(q)) {
            if (r.str != "done" && r.str != "failed") return false;
        }
        return true;
    }
    fs::path slow_pdf() {
        // Four scanned pages: OCR takes seconds, far longer than the claim timeouts used here.
        return testsupport::corpus_file("pdf/scanned/cardinal.pdf");
    }
};

// 3 workers, 1000 mixed small events, a random worker SIGKILLed and restarted 30 times.
TEST_F(DeliveryTest, WorkersKilledThirtyTimesLoseNothingAndCommitOnce) {
    const auto t0 = Clock::now();
    auto ids = submit_mixed(1000, "chaos");
    const std::vector<std::string> pool = {"a", "b", "c"};
    for (const auto& w : pool) start(w);
    std::mt19937 rng(std::random_device{}());
    std::size_t kills = 0;
    while (kills < 30) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 300));
        const std::string& w = pool[rng() % pool.size()];
        kill_worker(w);
        ++kills;
        start(w);
    }
    bool finished = eventually(180s, [&] { return all_final(ids); });
    Figures f = figures(ids, kills);
    report(f, t0);
    EXPECT_TRUE(finished);
    expect_all_done_once(ids, f);
    for (const auto& w : pool) EXPECT_TRUE(workers[w]->alive()) << "worker " << w << " exited";
}

// Redis SIGKILLed in the middle of a run and restarted from its append-only file.
TEST_F(DeliveryTest, RedisCrashRestartedFromAofLosesNothing) {
    const auto t0 = Clock::now();
    auto ids = submit_mixed(300, "crash");
    start("a");
    start("b");
    ASSERT_TRUE(eventually(60s, [&] { return results_count("final").size() >= 50; }));
    const std::size_t before_crash = results_count("final").size();
    server->kill_hard();
    std::this_thread::sleep_for(1500ms);
    server->start();
    EXPECT_LT(before_crash, ids.size()) << "the crash came after the run";
    bool finished = eventually(120s, [&] { return all_final(ids); });
    Figures f = figures(ids, 0);
    report(f, t0);
    EXPECT_TRUE(finished);
    expect_all_done_once(ids, f);
    EXPECT_TRUE(workers["a"]->alive());
    EXPECT_TRUE(workers["b"]->alive());
}

// A job much longer than INGEST_CLAIM_IDLE_MS keeps its lease: started and committed once.
TEST_F(DeliveryTest, JobSlowerThanClaimTimeoutIsNotTakenTwice) {
    INGEST_CORPUS_FILE(pdf, "pdf/scanned/cardinal.pdf");
    const auto t0 = Clock::now();
    put_copy("slow.pdf", pdf);
    start("s1", {{"INGEST_CONCURRENCY", "1"}});
    start("s2", {{"INGEST_CONCURRENCY", "1"}});
    add("slow1", "slow.pdf");
    bool finished = eventually(240s, [&] { return is_final("slow1"); });
    ASSERT_TRUE(finished);
    Figures f = figures({"slow1"}, 0);
    report(f, t0);
    EXPECT_EQ(meta("slow1", "status"), "done");
    const long long ms = std::stoll("0" + meta("slow1", "duration_ms"));
    EXPECT_GT(ms, 3000) << "the job was not slower than three claim timeouts";
    EXPECT_EQ(results_count("processing")["slow1"], 1) << "started more than once";
    EXPECT_EQ(f.commits, 1u);
    EXPECT_EQ(meta("slow1", "attempts"), "1");
    EXPECT_EQ(log_of("s1").find("reclaimed an idle entry"), std::string::npos);
    EXPECT_EQ(log_of("s2").find("reclaimed an idle entry"), std::string::npos);
}

// SIGTERM: the jobs in flight finish, the worker exits 0, the rest is left for another worker.
TEST_F(DeliveryTest, SigtermFinishesInFlightJobsAndExitsZero) {
    INGEST_CORPUS_FILE(pdf, "pdf/scanned/linn.pdf");
    const auto t0 = Clock::now();
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) {
        put_copy("drain" + std::to_string(i) + ".pdf", pdf);
        add("drain" + std::to_string(i), "drain" + std::to_string(i) + ".pdf");
        ids.push_back("drain" + std::to_string(i));
    }
    auto small = submit_mixed(20, "after");
    ids.insert(ids.end(), small.begin(), small.end());
    WorkerProcess& d = start("d");
    ASSERT_TRUE(eventually(60s, [&] { return meta("drain0", "status") == "processing"; }));
    std::vector<std::string> in_flight;
    for (const auto& id : ids) {
        if (meta(id, "status") == "processing") in_flight.push_back(id);
    }
    d.signal(SIGTERM);
    const int code = d.wait(75s);
    EXPECT_EQ(code, 0) << "exit code (-1: still running 75 s after SIGTERM)";
    for (const auto& id : in_flight) EXPECT_EQ(meta(id, "status"), "done") << id << " was in flight at SIGTERM";
    EXPECT_NE(log_of("d").find("worker stopped"), std::string::npos);
    start("e");
    bool finished = eventually(180s, [&] { return all_final(ids); });
    Figures f = figures(ids, 0);
    report(f, t0);
    EXPECT_TRUE(finished);
    expect_all_done_once(ids, f);
}

// A second signal ends the worker at once; its job stays pending for another worker.
TEST_F(DeliveryTest, SecondSignalExitsAtOnceLeavingTheEntryPending) {
    INGEST_CORPUS_FILE(pdf, "pdf/scanned/cardinal.pdf");
    put_copy("slow.pdf", pdf);
    add("twice1", "slow.pdf");
    WorkerProcess& w = start("w", {{"INGEST_CONCURRENCY", "1"}});
    ASSERT_TRUE(eventually(60s, [&] { return meta("twice1", "status") == "processing"; }));
    w.signal(SIGTERM);
    std::this_thread::sleep_for(200ms);
    const auto t = Clock::now();
    w.signal(SIGTERM);
    w.wait(10s);
    EXPECT_LT(Clock::now() - t, 3s);
    EXPECT_FALSE(w.alive());
    EXPECT_EQ(pending(), 1);
    EXPECT_EQ(meta("twice1", "status"), "processing");
    EXPECT_EQ(results_count("final")["twice1"], 0);
}

// An entry whose worker dies every time ends in <stream>:dead after INGEST_MAX_DELIVERIES;
// `dead list` shows it and `dead retry` brings it back to be finished.
TEST_F(DeliveryTest, EntryThatKillsItsWorkerEndsDeadLetteredAndRetryFinishesIt) {
    INGEST_CORPUS_FILE(pdf, "pdf/scanned/cardinal.pdf");
    const auto t0 = Clock::now();
    put_copy("poison.pdf", pdf);
    const std::string entry = add("poison1", "poison.pdf");
    const std::map<std::string, std::string> extra = {{"INGEST_MAX_DELIVERIES", "3"}, {"INGEST_CONCURRENCY", "1"}};
    std::size_t kills = 0;
    for (int k = 1; k <= 6; ++k) {
        const std::string name = "p" + std::to_string(k);
        start(name, extra);
        if (!eventually(20s, [&] { return pending_owner() == name; })) {
            kill_worker(name);
            break; // it did not take the entry again: dead-lettered
        }
        kill_worker(name);
        ++kills;
        std::this_thread::sleep_for(1200ms);
    }
    EXPECT_GE(kills, 3u) << "killed while holding the entry";
    start("last", extra);
    ASSERT_TRUE(eventually(30s, [&] { return is_final("poison1"); }));
    EXPECT_EQ(meta("poison1", "status"), "failed");
    EXPECT_EQ(meta("poison1", "error_code"), "gave_up");
    EXPECT_TRUE(eventually(5s, [&] { return pending() == 0; }));
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
    EXPECT_EQ(results_count("final")["poison1"], 1);

    int status = -1;
    std::string listed = testsupport::run_ingestd("dead list", env, &status);
    EXPECT_EQ(status, 0);
    EXPECT_NE(listed.find("\"poison1\""), std::string::npos) << listed;
    std::string retried = testsupport::run_ingestd("dead retry poison1", env, &status);
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
        put("up/" + id + ".txt", "the text of " + id + "\n");
        cmd({"HSET", "ingest:file:" + id, "status", "pending", "storage_key", "up/" + id + ".txt", "steps",
             "text,thumbnails", "submitted_at", ts});
    };
    pending_meta("lost1", old_ts);     // no stream entry at all: lost
    pending_meta("inflight1", old_ts); // delivered to a consumer that has not acknowledged
    add("inflight1", "up/inflight1.txt");
    cmd({"XGROUP", "CREATE", k_stream, "ingestd", "0"});
    cmd({"XREADGROUP", "GROUP", "ingestd", "elsewhere", "COUNT", "1", "STREAMS", k_stream, ">"});
    pending_meta("undelivered1", old_ts); // in the stream, not yet delivered
    add("undelivered1", "up/undelivered1.txt");
    pending_meta("recent1", jobs::utc_now_rfc3339());
    cmd({"HSET", "ingest:file:done1", "status", "done", "storage_key", "up/x", "submitted_at", old_ts});
    ASSERT_EQ(pending(), 1);
    const long long before = cmd({"XLEN", k_stream}).integer;

    int status = -1;
    std::string out = testsupport::run_ingestd("reconcile --older-than 600", env, &status);
    EXPECT_EQ(status, 0);
    EXPECT_NE(out.find("\"lost1\""), std::string::npos) << out;
    for (const char* id : {"undelivered1", "inflight1", "recent1", "done1"}) {
        EXPECT_EQ(out.find(std::string("\"") + id + "\""), std::string::npos) << id << " re-appended: " << out;
    }
    EXPECT_EQ(cmd({"XLEN", k_stream}).integer, before + 1);
    // Safe to run again: lost1 now has an undelivered entry.
    out = testsupport::run_ingestd("reconcile --older-than 600", env, &status);
    EXPECT_EQ(status, 0);
    EXPECT_EQ(out, "");
    EXPECT_EQ(cmd({"XLEN", k_stream}).integer, before + 1);
    start("r");
    EXPECT_TRUE(eventually(60s, [&] { return meta("lost1", "status") == "done"; }));
    EXPECT_EQ(meta("lost1", "extracted_text"), "the text of lost1\n");
}

// Redis OOM replies are transient: the job waits and goes on, it is neither failed nor
// redelivered.
TEST_F(DeliveryTest, OomRepliesAreRetriedNotFatal) {
    put("up/oom1.txt", "written once memory is back\n");
    add("oom1", "up/oom1.txt");
    cmd({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
    cmd({"CONFIG", "SET", "maxmemory", "1"});
    WorkerProcess& w = start("o");
    std::this_thread::sleep_for(3s);
    EXPECT_TRUE(w.alive());
    EXPECT_NE(meta("oom1", "status"), "failed");
    cmd({"CONFIG", "SET", "maxmemory", "0"});
    ASSERT_TRUE(eventually(30s, [&] { return is_final("oom1"); }));
    EXPECT_EQ(meta("oom1", "status"), "done");
    EXPECT_EQ(meta("oom1", "attempts"), "1");
    EXPECT_EQ(results_count("final")["oom1"], 1);
    EXPECT_NE(log_of("o").find("OOM"), std::string::npos) << "the OOM replies were not seen";
}

// Redis down: no busy loop, /readyz 503 (healthz 200), ready again and working once it is back.
TEST_F(DeliveryTest, RedisDownNoSpinNotReadyThenRecovers) {
    const int port = testsupport::free_port();
    WorkerProcess& w = start("h", {{"INGEST_HTTP_ADDR", "127.0.0.1:" + std::to_string(port)}});
    ASSERT_TRUE(eventually(30s, [&] { return http_status(port, "/readyz") == 200; }));
    server->kill_hard();
    std::this_thread::sleep_for(500ms);
    const long long t0 = cpu_ticks(w.pid());
    std::this_thread::sleep_for(4s);
    const long long used = cpu_ticks(w.pid()) - t0;
    EXPECT_LT(used, 40) << "CPU ticks in 4 s with Redis down";
    EXPECT_EQ(http_status(port, "/readyz"), 503);
    EXPECT_EQ(http_status(port, "/healthz"), 200);
    server->start();
    EXPECT_TRUE(eventually(30s, [&] { return http_status(port, "/readyz") == 200; }));
    put("up/back1.txt", "after the outage\n");
    add("back1", "up/back1.txt");
    EXPECT_TRUE(eventually(30s, [&] { return meta("back1", "status") == "done"; }));
    EXPECT_TRUE(w.alive());
}

// Trimming removes only what every group has acknowledged, and only from a long stream.
TEST_F(DeliveryTest, TrimNeverDropsUnacknowledgedOrUndeliveredEntries) {
    std::vector<std::string> ids;
    for (int i = 0; i < 60; ++i) ids.push_back(add("t" + std::to_string(i), "k"));
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
    EXPECT_EQ(q.trim(redis, 100, 0ms), 0) << "a short stream is left alone";
    EXPECT_EQ(q.trim(redis, 10, 3600s), 0) << "recent entries are kept";
    EXPECT_EQ(q.trim(redis, 10, 0ms), 20);
    jobs::Reply first = cmd({"XRANGE", k_stream, "-", "+", "COUNT", "1"});
    EXPECT_EQ(first.elements.at(0).elements.at(0).str, ids[20]);
    // Everything acknowledged everywhere: only undelivered entries stay.
    cmd({"XACK", k_stream, "audit", ids[20]});
    cmd({"XREADGROUP", "GROUP", "ingestd", "c", "COUNT", "100", "STREAMS", k_stream, ">"});
    for (int i = 30; i < 60; ++i) cmd({"XACK", k_stream, "ingestd", ids[static_cast<std::size_t>(i)]});
    EXPECT_EQ(q.trim(redis, 5, 0ms), 30); // audit has not read entries 50..59
    EXPECT_EQ(cmd({"XLEN", k_stream}).integer, 10);
}

} // namespace

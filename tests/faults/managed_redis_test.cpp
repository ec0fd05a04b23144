// Managed Redis end to end (issue 18): `ingestd worker` and the commands over rediss:// with
// a test CA, and a Sentinel set whose primary is SIGKILLed with events in flight.
#include "tests/support/generated_file.hpp"
#include "tests/support/sentinel_set.hpp"
#include "tests/support/tls_files.hpp"
#include "tests/support/worker_fixture.hpp"

#include <csignal>
#include <fstream>
#include <iostream>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using testsupport::WorkerFixture;
using Clock = std::chrono::steady_clock;

// Lines of `text` that are not empty.
std::size_t line_count(const std::string& text) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n' && i > 0 && text[i - 1] != '\n') ++n;
    }
    return n + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

// A worker over TLS with `extra` settings: its file `f1` ends done.
void expect_file_done_over_tls(testsupport::TlsRedisServer& redis, const std::map<std::string, std::string>& extra) {
    WorkerFixture fx(redis.server.url()); // the test reads through the plain port
    fx.env()["INGEST_REDIS_URL"] = redis.tls_url();
    fx.env()["INGEST_REDIS_CA"] = redis.ca.ca().string();
    fx.put("a.txt", "hello over TLS\n");
    fx.start("tls", extra);
    fx.submit("f1", "a.txt");
    EXPECT_EQ(fx.wait_final("f1", 60s), "done");
    EXPECT_EQ(fx.field("f1", "extracted_text"), "hello over TLS\n");
    // A command over TLS too.
    int status = -1;
    auto env = fx.env();
    for (const auto& [k, v] : extra) env[k] = v;
    const std::string out = testsupport::run_ingestd("status f1", env, &status);
    EXPECT_EQ(status, 0) << out;
    EXPECT_NE(out.find("\"status\":\"done\""), std::string::npos) << out;
}

TEST(ManagedRedis, WorkerFinishesAFileOverTls) {
    testsupport::TlsRedisServer redis(false);
    expect_file_done_over_tls(redis, {});
}

TEST(ManagedRedis, ClientCertificateRequiredAndGiven) {
    testsupport::TlsRedisServer redis(true);
    expect_file_done_over_tls(redis, {{"INGEST_REDIS_CERT", redis.ca.client_cert().string()},
                                      {"INGEST_REDIS_KEY", redis.ca.client_key().string()}});
}

// A wrong CA, a missing client certificate, TLS to a plain port: exit 2 at start-up with one
// line that says why, and never the password.
TEST(ManagedRedis, RefusedCertificatesExitTwoWithOneLine) {
    testsupport::TlsRedisServer redis(true);
    WorkerFixture fx(redis.server.url());
    const std::string plain_tls = "rediss://:s3cr3tpw@127.0.0.1:" + std::to_string(redis.server.port()) + "/0";
    const std::vector<std::pair<std::string, std::map<std::string, std::string>>> cases = {
        {"wrong-ca",
         {{"INGEST_REDIS_URL", redis.tls_url(":s3cr3tpw")}, {"INGEST_REDIS_CA", redis.ca.other_ca().string()}}},
        {"no-cert", {{"INGEST_REDIS_URL", redis.tls_url(":s3cr3tpw")}, {"INGEST_REDIS_CA", redis.ca.ca().string()}}},
        {"plain-port", {{"INGEST_REDIS_URL", plain_tls}, {"INGEST_REDIS_CA", redis.ca.ca().string()}}},
    };
    for (const auto& [name, env] : cases) {
        testsupport::WorkerProcess& w = fx.start(name, env);
        EXPECT_EQ(w.wait(20s), 2) << name;
        const std::string log = fx.log_of(name);
        EXPECT_EQ(line_count(log), 1U) << name << ": " << log;
        EXPECT_NE(log.find("TLS"), std::string::npos) << name << ": " << log;
        EXPECT_EQ(log.find("s3cr3tpw"), std::string::npos) << name << ": " << log;
        int status = -1;
        auto cli_env = fx.env();
        for (const auto& [k, v] : env) cli_env[k] = v;
        const std::string out = testsupport::run_ingestd("status f1 2>&1", cli_env, &status);
        EXPECT_EQ(status, 2) << name << ": " << out;
        EXPECT_EQ(out.find("s3cr3tpw"), std::string::npos) << out;
    }
    EXPECT_NE(fx.log_of("wrong-ca").find("certificate verify failed"), std::string::npos) << fx.log_of("wrong-ca");
}

// 40 events in flight on two workers; the primary SIGKILLed: every event ends final and is
// committed once, on the new primary; reconcile re-appends what the failover lost.
TEST(ManagedRedis, SentinelFailoverMidRunLosesNothingAndCommitsOnce) {
    testsupport::SentinelSet set;
    WorkerFixture fx(set.url());
    const auto image = fx.dir() / "noise.png";
    testsupport::write_image(image, 900, 700);
    std::vector<std::string> ids;
    std::vector<std::vector<std::string>> writes;
    for (int k = 0; k < 40; ++k) {
        const std::string id = "sn" + std::to_string(k), key = "up/" + id + ".png";
        fx.put_copy(key, image);
        std::ofstream(fx.store() / key, std::ios::app) << "% " << id << "\n"; // distinct bytes: no reuse
        writes.push_back({"HSET", "ingest:file:" + id, "status", "pending", "storage_key", key, "steps", "thumbnails",
                          "submitted_at", "2020-01-01T00:00:00.000Z"});
        writes.push_back({"XADD", "ingest:uploads", "*", "file_id", id, "storage_key", key, "steps", "thumbnails"});
        ids.push_back(id);
    }
    fx.env()["INGEST_CLAIM_IDLE_MS"] = "3000";
    fx.start("sa");
    fx.start("sb");
    fx.redis().pipeline(writes);
    ASSERT_TRUE(testsupport::eventually(60s, [&] { return fx.results_count("final").size() >= 3; }));
    const std::size_t final_at_kill = fx.results_count("final").size();
    set.kill_primary();
    const auto t0 = Clock::now();
    ASSERT_TRUE(testsupport::eventually(60s, [&] { return set.primary_port() == set.replica_port(); }));
    const auto promoted = Clock::now() - t0;
    // What the failover lost (an event appended but not replicated) comes back through reconcile.
    bool reconciled = false;
    const bool all = testsupport::eventually(120s, [&] {
        if (!reconciled && Clock::now() - t0 > 10s) {
            testsupport::run_ingestd("reconcile --older-than 5", fx.env());
            reconciled = true;
        }
        return fx.all_final(ids);
    });
    const auto recovered = Clock::now() - t0;
    std::cout << "[ figures  ] " << final_at_kill << "/40 final when the primary was killed; replica promoted after "
              << std::chrono::duration_cast<std::chrono::milliseconds>(promoted).count() << " ms; all 40 final after "
              << std::chrono::duration_cast<std::chrono::milliseconds>(recovered).count() << " ms\n";
    ASSERT_TRUE(all) << "not every event final within 120 s of the failover";
    const auto finals = fx.results_count("final");
    for (const auto& id : ids) {
        EXPECT_EQ(fx.field(id, "status"), "done") << id;
        EXPECT_EQ(finals.count(id) ? finals.at(id) : 0, 1) << id << " committed other than once";
    }
    EXPECT_EQ(fx.pending(), 0);
}

} // namespace

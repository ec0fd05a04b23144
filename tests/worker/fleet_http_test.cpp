// INGEST_HTTP_TOKEN and the POST actions, step-failure and process metrics, and the log line
// of a failed step, against a running `ingestd worker` and a real redis-server.
#include "tests/support/http_client.hpp"
#include "tests/support/prom_text.hpp"
#include "tests/support/worker_fixture.hpp"
#include "tests/worker/http_worker.hpp"

#include <csignal>
#include <nlohmann/json.hpp>
#include <set>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;
using testsupport::http_get;
using testsupport::http_raw;
using testsupport::http_request;

struct FleetHttpTest : ::testing::Test {
    testsupport::WorkerFixture fx;
    int port = testsupport::free_port();

    void start(std::map<std::string, std::string> extra = {}) {
        testsupport::start_http_worker(fx, "web1", port, std::move(extra));
    }
    int status_of(const std::string& method, const std::string& path, const std::string& headers = "") {
        return http_request(port, method, path, headers).status;
    }
};

const std::string k_bearer = "Authorization: Bearer t0ken\r\n";

// With a token: probes and metrics stay open; the dashboard and /v1 need it (Bearer, or a
// browser's Basic with the token as password); the actions answer with what they did.
TEST_F(FleetHttpTest, TokenGuardsDashboardV1AndActions) {
    ASSERT_NO_FATAL_FAILURE(start({{"INGEST_HTTP_TOKEN", "t0ken"}}));
    fx.put("a.txt", "hello\n");
    fx.submit("f1", "a.txt", {{"name", "a.txt"}, {"owner", "ann"}});
    ASSERT_EQ(fx.wait_final("f1"), "done");
    for (const char* open : {"/healthz", "/readyz", "/metrics"}) EXPECT_EQ(status_of("GET", open), 200) << open;
    const auto refused = http_get(port, "/v1/files/f1");
    EXPECT_EQ(refused.status, 401);
    EXPECT_NE(refused.header("www-authenticate").find("Basic"), std::string::npos);
    EXPECT_EQ(status_of("GET", "/", ""), 401);
    EXPECT_EQ(status_of("GET", "/v1/files/f1", "Authorization: Bearer wrong\r\n"), 401);
    EXPECT_EQ(status_of("GET", "/v1/files/f1", k_bearer), 200);
    EXPECT_EQ(status_of("GET", "/v1/files/f1", "Authorization: Basic dTp0MHRrZW4=\r\n"), 401); // u:t0tken
    EXPECT_EQ(status_of("GET", "/v1/files/f1", "Authorization: Basic dTp0MGtlbg==\r\n"), 200); // u:t0ken
    EXPECT_EQ(status_of("POST", "/v1/files/f1/retry"), 401);
    EXPECT_EQ(status_of("POST", "/healthz", k_bearer), 405);

    const std::string before = fx.field("f1", "event_id");
    const auto retried = http_request(port, "POST", "/v1/files/f1/retry", k_bearer);
    ASSERT_EQ(retried.status, 200) << retried.body;
    const auto answer = nlohmann::json::parse(retried.body);
    EXPECT_EQ(answer["file_id"], "f1");
    EXPECT_TRUE(eventually(60s, [&] { return fx.field("f1", "event_id") == answer["event_id"] && fx.is_final("f1"); }));
    EXPECT_NE(fx.field("f1", "event_id"), before);
    EXPECT_EQ(fx.field("f1", "owner"), "ann");
    EXPECT_EQ(status_of("POST", "/v1/files/nosuch/retry", k_bearer), 404);

    fx.redis().command(
        {"XADD", "ingest:uploads:dead", "*", "file_id", "d1", "storage_key", "a.txt", "dead_reason", "r"});
    fx.redis().command({"XADD", "ingest:uploads:dead", "*", "file_id", "d2", "storage_key", "x", "dead_reason", "r"});
    const auto purged = http_request(port, "POST", "/v1/dead/purge?file_id=d2", k_bearer);
    ASSERT_EQ(purged.status, 200) << purged.body;
    EXPECT_EQ(nlohmann::json::parse(purged.body)["count"], 1);
    EXPECT_EQ(status_of("POST", "/v1/dead/purge?file_id=d2", k_bearer), 404);
    const auto requeued = http_request(port, "POST", "/v1/dead/retry", k_bearer);
    ASSERT_EQ(requeued.status, 200) << requeued.body;
    const auto entries = nlohmann::json::parse(requeued.body)["entries"];
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0]["file_id"], "d1");
    EXPECT_TRUE(eventually(60s, [&] { return fx.is_final("d1"); }));
    EXPECT_EQ(fx.redis().command({"XLEN", "ingest:uploads:dead"}).integer, 0);
}

// The dead-letter actions take the ids from a JSON body (or a form) as well as the query: only
// the named letters are touched; an empty list touches none; a body that is not JSON is a 400.
TEST_F(FleetHttpTest, DeadActionsReadTheFileIdsFromAJsonBody) {
    ASSERT_NO_FATAL_FAILURE(start({{"INGEST_HTTP_TOKEN", "t0ken"}}));
    for (const char* id : {"b1", "b2", "b3"}) {
        fx.redis().command({"XADD", "ingest:uploads:dead", "*", "file_id", id, "storage_key", "x", "dead_reason", "r"});
    }
    const auto post = [&](const std::string& type, const std::string& body) {
        return http_raw(port, "POST /v1/dead/purge HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + k_bearer +
                                  "Content-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) +
                                  "\r\n\r\n" + body);
    };
    const auto purged = post("application/json", R"({"file_ids": ["b2"]})");
    ASSERT_EQ(purged.status, 200) << purged.body;
    EXPECT_EQ(nlohmann::json::parse(purged.body)["entries"][0]["file_id"], "b2");
    EXPECT_EQ(fx.redis().command({"XLEN", "ingest:uploads:dead"}).integer, 2);
    const auto none = post("application/json", R"({"file_ids": []})");
    ASSERT_EQ(none.status, 200) << none.body;
    EXPECT_EQ(nlohmann::json::parse(none.body)["count"], 0);
    EXPECT_EQ(post("application/json", "purge everything").status, 400);
    EXPECT_EQ(post("application/json", R"({"file_ids": [1]})").status, 400);
    EXPECT_EQ(fx.redis().command({"XLEN", "ingest:uploads:dead"}).integer, 2);
    const auto form = post("application/x-www-form-urlencoded", "file_id=b3");
    ASSERT_EQ(form.status, 200) << form.body;
    EXPECT_EQ(nlohmann::json::parse(form.body)["entries"][0]["file_id"], "b3");
    EXPECT_EQ(fx.redis().command({"XLEN", "ingest:uploads:dead"}).integer, 1);
}

// Without a token the read routes are open and every action is refused with 403.
TEST_F(FleetHttpTest, WithoutATokenActionsAreRefused) {
    ASSERT_NO_FATAL_FAILURE(start());
    EXPECT_EQ(status_of("GET", "/v1/files/nosuch"), 404);
    EXPECT_EQ(status_of("POST", "/v1/files/nosuch/retry"), 403);
    EXPECT_EQ(status_of("POST", "/v1/dead/retry", k_bearer), 403);
    EXPECT_EQ(status_of("POST", "/v1/dead/purge"), 403);
}

// A corrupt PDF is `done` with failed steps: counted as partial (not done), its step
// failures by step and code, its duration by type, and a `step failed` warning in the JSON
// log with numbers as numbers; process_* metrics are there.
TEST_F(FleetHttpTest, StepFailuresAreCountedAndLoggedAtWarning) {
    ASSERT_NO_FATAL_FAILURE(start({{"INGEST_LOG_FORMAT", "json"}}));
    fx.put("bad.pdf", "%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage\n");
    fx.submit("bad1", "bad.pdf");
    ASSERT_EQ(fx.wait_final("bad1"), "done");
    ASSERT_EQ(fx.field("bad1", "extraction_status"), "failed");
    const std::string code = fx.field("bad1", "extraction_error_code");
    std::string body;
    ASSERT_TRUE(eventually(10s, [&] {
        body = http_get(port, "/metrics").body;
        return body.find("ingestd_jobs_total{outcome=\"partial\",type=\"pdf\"} 1") != std::string::npos;
    })) << body;
    EXPECT_EQ(body.find("ingestd_jobs_total{outcome=\"done\",type=\"pdf\"}"), std::string::npos);
    EXPECT_NE(body.find("ingestd_step_failures_total{step=\"text\",code=\"" + code + "\"} 1"), std::string::npos)
        << body;
    EXPECT_NE(body.find("ingestd_job_duration_seconds_bucket{type=\"pdf\",le=\"600\"} 1"), std::string::npos);
    const auto parsed = testsupport::parse_prometheus_text(body);
    for (const auto& e : parsed.errors) ADD_FAILURE() << e;
    for (const char* family : {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds",
                               "process_max_fds", "process_start_time_seconds"}) {
        EXPECT_TRUE(parsed.types.count(family)) << family;
    }
    nlohmann::json step_line, done_line;
    ASSERT_TRUE(eventually(10s, [&] {
        std::istringstream log(fx.log_of("web1"));
        for (std::string line; std::getline(log, line);) {
            if (line.empty() || line[0] != '{') continue;
            const auto j = nlohmann::json::parse(line);
            if (j.value("msg", "") == "step failed" && j.value("step", "") == "text") step_line = j;
            if (j.value("msg", "") == "file done" && j.value("file_id", "") == "bad1") done_line = j;
        }
        return !step_line.is_null() && !done_line.is_null();
    })) << fx.log_of("web1");
    EXPECT_EQ(step_line["level"], "warning");
    EXPECT_EQ(step_line["step"], "text");
    EXPECT_EQ(step_line["error_code"], code);
    EXPECT_FALSE(step_line["error"].get<std::string>().empty());
    EXPECT_EQ(done_line["outcome"], "partial");
    EXPECT_TRUE(done_line["duration_ms"].is_number()) << done_line;
}

// Two workers: either one's /v1/workers lists both from their heartbeats in Redis, with
// fleet-wide figures from shared data; a worker that stops leaves the list.
TEST_F(FleetHttpTest, WorkersListsTheWholeGroupFromAnyPod) {
    ASSERT_NO_FATAL_FAILURE(start());
    const int port2 = testsupport::free_port();
    ASSERT_NO_FATAL_FAILURE(testsupport::start_http_worker(fx, "web2", port2));
    fx.put("a.txt", "hello\n");
    fx.put("bad.pdf", "%PDF-1.4\ngarbage\n");
    fx.submit("w1", "a.txt");
    fx.submit("w2", "bad.pdf");
    fx.submit("w3", "missing.txt");
    ASSERT_TRUE(eventually(60s, [&] { return fx.all_final({"w1", "w2", "w3"}); }));
    nlohmann::json fleet;
    ASSERT_TRUE(eventually(20s, [&] {
        const auto r = http_get(port2, "/v1/workers");
        if (r.status != 200) return false;
        fleet = nlohmann::json::parse(r.body);
        long long done = 0;
        for (const auto& w : fleet["workers"]) done += w["files_done"].get<long long>();
        return fleet["workers"].size() == 2 && done == 3;
    })) << fleet.dump();
    std::set<std::string> names;
    for (const auto& w : fleet["workers"]) {
        names.insert(w["name"]);
        EXPECT_EQ(w["concurrency"], 2) << w;
        EXPECT_FALSE(w["host"].get<std::string>().empty()) << w;
        EXPECT_FALSE(w["last_seen"].get<std::string>().empty()) << w;
        EXPECT_FALSE(w["version"].get<std::string>().empty()) << w;
    }
    EXPECT_EQ(names, (std::set<std::string>{"web1", "web2"}));
    EXPECT_EQ(fleet["failures_by_code"]["storage_missing"], 1) << fleet.dump();
    EXPECT_GE(fleet["failures_by_code"]["corrupt_file"].get<long long>(), 1) << fleet.dump();
    long long done = 0, failed = 0;
    for (const auto& m : fleet["minutes"]) {
        done += m["done"].get<long long>();
        failed += m["failed"].get<long long>();
    }
    EXPECT_EQ(done, 2);
    EXPECT_EQ(failed, 1);
    EXPECT_EQ(http_get(port, "/v1/workers").body.find("web2") != std::string::npos, true);

    fx.worker("web2").signal(SIGTERM);
    EXPECT_EQ(fx.worker("web2").wait(40s), 0);
    EXPECT_TRUE(eventually(40s, [&] {
        const auto j = nlohmann::json::parse(http_get(port, "/v1/workers").body);
        return j["workers"].size() == 1 && j["workers"][0]["name"] == "web1";
    }));
}

} // namespace

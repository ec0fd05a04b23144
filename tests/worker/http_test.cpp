// The HTTP endpoint against a running `ingestd worker` and a real redis-server: every route, HEAD,
// 405, 404, 400 on malformed and oversized requests, ETag/304, /v1/recent and /v1/stats, /metrics
// parsed strictly, readiness while draining, probes that answer at once while Redis is stopped.
// Every fixture is made at run time (an image and a scanned PDF by `vips`, text files).
#include "tests/support/generated_file.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/prom_text.hpp"
#include "tests/support/worker_fixture.hpp"
#include "tests/worker/http_worker.hpp"
#include "worker/http/routes.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <future>
#include <iostream>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;
using testsupport::http_get;
using testsupport::http_request;
using Clock = std::chrono::steady_clock;

struct HttpTest : ::testing::Test {
    testsupport::WorkerFixture fx;
    int port = testsupport::free_port();

    // Starts worker web1 with its endpoint on `port` (OCR off unless `extra` says otherwise)
    // and waits until it is ready.
    void start(std::map<std::string, std::string> extra = {}) {
        testsupport::start_http_worker(fx, "web1", port, std::move(extra));
    }
    testsupport::WorkerProcess& worker() { return fx.worker("web1"); }
    std::string field(const std::string& id, const std::string& f) { return fx.field(id, f); }
    // Stores `bytes` as `key` and submits it as `id`, named after its key.
    void add(const std::string& id, const std::string& key, const std::string& bytes) {
        fx.put(key, bytes);
        fx.submit(id, key, {{"name", key}});
    }
    // An image with thumbnails (a PNG made by `vips`) and a text file without, both finished.
    void two_files() {
        testsupport::write_image(fx.dir() / "picture.png", 400, 300);
        fx.put_copy("picture.png", fx.dir() / "picture.png");
        fx.submit("img1", "picture.png", {{"name", "picture.png"}});
        add("txt1", "note.txt", "a note\n");
        ASSERT_TRUE(eventually(60s, [&] { return fx.all_final({"img1", "txt1"}); }));
        ASSERT_EQ(field("img1", "thumbnail_status"), "done");
        // The worker counts a job just after its commit: wait until both are counted.
        auto counted = [&](const std::string& type) {
            const std::string sample = "ingestd_jobs_total{outcome=\"done\",type=\"" + type + "\"} 1\n";
            return http_get(port, "/metrics").body.find(sample) != std::string::npos;
        };
        ASSERT_TRUE(eventually(10s, [&] { return counted("image") && counted("text"); }));
    }
};

TEST_F(HttpTest, HealthMethodsAndUnknownRoutes) {
    ASSERT_NO_FATAL_FAILURE(start());
    auto h = http_get(port, "/healthz");
    EXPECT_EQ(h.status, 200);
    EXPECT_EQ(h.body, "ok\n");
    EXPECT_EQ(http_get(port, "/readyz").status, 200);
    EXPECT_EQ(http_get(port, "/readyz?verbose=1").status, 200) << "a query string does not change the route";

    auto head = http_request(port, "HEAD", "/");
    EXPECT_EQ(head.status, 200);
    EXPECT_TRUE(head.body.empty());
    EXPECT_EQ(head.header("content-length"), std::to_string(http_get(port, "/").body.size()));

    for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS"}) {
        auto r = http_request(port, method, "/healthz", "Content-Length: 0\r\n");
        EXPECT_EQ(r.status, 405) << method;
        EXPECT_EQ(r.header("allow"), "GET, HEAD") << method;
    }
    EXPECT_EQ(http_get(port, "/nothing").status, 404);
    EXPECT_EQ(http_get(port, "/v1/files/unknown1").status, 404);
    EXPECT_EQ(http_get(port, "/v1/files/bad%20id").status, 404);
    EXPECT_EQ(http_get(port, "/v1/files/../../etc/passwd").status, 404);
    EXPECT_EQ(http_get(port, "/v1/files/unknown1/thumbnail/72").status, 404);
}

// The routes that read outputs, on both stores (the value parameter): a folder, and s3rver.
struct HttpStoreTest : HttpTest, ::testing::WithParamInterface<testsupport::StoreKind> {
    void SetUp() override {
        std::string why;
        if (!fx.use_store(GetParam(), &why)) GTEST_SKIP() << why;
    }
};

TEST_P(HttpStoreTest, FilesThumbnailsWithEtagRecentAndStats) {
    ASSERT_NO_FATAL_FAILURE(start());
    ASSERT_NO_FATAL_FAILURE(two_files());

    auto meta = http_get(port, "/v1/files/img1");
    ASSERT_EQ(meta.status, 200);
    EXPECT_EQ(meta.header("content-type"), "application/json");
    auto j = nlohmann::json::parse(meta.body);
    EXPECT_EQ(j["status"], "done");
    EXPECT_EQ(j["content_hash"], field("img1", "content_hash"));
    EXPECT_EQ(j["content_type"], "image/png");

    for (const char* size : {"72", "144", "288"}) {
        auto t = http_get(port, std::string("/v1/files/img1/thumbnail/") + size);
        ASSERT_EQ(t.status, 200) << size;
        EXPECT_EQ(t.header("content-type"), "image/webp");
        ASSERT_GT(t.body.size(), 12u);
        EXPECT_EQ(t.body.substr(0, 4), "RIFF");
        EXPECT_EQ(t.body.substr(8, 4), "WEBP");
        EXPECT_EQ(t.body, fx.read_output(field("img1", std::string("thumbnail_") + size + "_key")));
        const std::string etag = t.header("etag");
        ASSERT_FALSE(etag.empty());
        EXPECT_NE(etag.find(field("img1", "content_hash")), std::string::npos) << etag;
        auto again = http_request(port, "GET", std::string("/v1/files/img1/thumbnail/") + size,
                                  "If-None-Match: " + etag + "\r\n");
        EXPECT_EQ(again.status, 304) << size;
        EXPECT_TRUE(again.body.empty());
        EXPECT_EQ(again.header("etag"), etag);
        auto other = http_request(port, "GET", std::string("/v1/files/img1/thumbnail/") + size,
                                  "If-None-Match: \"something-else\"\r\n");
        EXPECT_EQ(other.status, 200);
    }
    EXPECT_NE(http_get(port, "/v1/files/img1/thumbnail/72").header("etag"),
              http_get(port, "/v1/files/img1/thumbnail/144").header("etag"));
    EXPECT_EQ(http_get(port, "/v1/files/img1/thumbnail/100").status, 404);
    EXPECT_EQ(http_get(port, "/v1/files/img1/preview").status, 404);
    EXPECT_EQ(http_get(port, "/v1/files/txt1/thumbnail/72").status, 404) << "a text file has no thumbnail";
    EXPECT_EQ(nlohmann::json::parse(http_get(port, "/v1/files/txt1").body)["extracted_text"], "a note\n");

    // The dashboard's data: newest first, one row per file, thumbnail link only where one exists.
    auto recent = http_get(port, "/v1/recent");
    ASSERT_EQ(recent.status, 200);
    auto rows = nlohmann::json::parse(recent.body);
    ASSERT_EQ(rows.size(), 2u) << recent.body;
    for (const auto& row : rows) {
        EXPECT_EQ(row["status"], "done");
        EXPECT_FALSE(row.value("finished_at", "").empty());
        if (row["file_id"] == "img1") {
            EXPECT_EQ(row["thumbnail"], "/v1/files/img1/thumbnail/72");
            EXPECT_EQ(row["name"], "picture.png");
        } else {
            EXPECT_EQ(row["file_id"], "txt1");
            EXPECT_FALSE(row.contains("thumbnail"));
        }
    }

    auto stats = nlohmann::json::parse(http_get(port, "/v1/stats").body);
    EXPECT_EQ(stats["worker"], "web1");
    EXPECT_EQ(stats["ready"], true);
    EXPECT_EQ(stats["concurrency"], 2);
    EXPECT_EQ(stats["stream_lag"], 0);
    EXPECT_EQ(stats["dead_letters"], 0);
    long long done = 0;
    ASSERT_EQ(stats["minutes"].size(), 15u);
    for (const auto& m : stats["minutes"]) done += m["done"].get<long long>();
    EXPECT_EQ(done, 2);

    // A bad file_id goes to the dead-letter stream; the count shows at once.
    fx.submit("bad id!", "note.txt");
    EXPECT_TRUE(
        eventually(20s, [&] { return nlohmann::json::parse(http_get(port, "/v1/stats").body)["dead_letters"] == 1; }));
}

INSTANTIATE_TEST_SUITE_P(Stores, HttpStoreTest,
                         ::testing::Values(testsupport::StoreKind::filesystem, testsupport::StoreKind::s3),
                         testsupport::store_name);

TEST_F(HttpTest, MalformedAndOversizedRequestsGet400AndDoNotDisturbTheWorker) {
    ASSERT_NO_FATAL_FAILURE(start());
    // A connection that never sends anything must not hold up anybody else.
    int idle = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(idle, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);

    EXPECT_EQ(testsupport::http_raw(port, "this is not http\r\n\r\n").status, 400);
    EXPECT_EQ(testsupport::http_raw(port, "GET /healthz HTTP/9.9\r\n\r\n").status, 400);
    EXPECT_EQ(testsupport::http_raw(port, std::string("GET /\0x HTTP/1.1\r\n\r\n", 20)).status, 400);
    const std::string huge =
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
    EXPECT_EQ(testsupport::http_raw(port, huge).status, 400);
    const std::string long_target = "GET /v1/files/" + std::string(100 * 1024, 'a') + " HTTP/1.1\r\n\r\n";
    EXPECT_EQ(testsupport::http_raw(port, long_target).status, 400);
    // A body on a GET is refused rather than read.
    EXPECT_EQ(http_request(port, "GET", "/healthz", "Content-Length: 5000000\r\n").status, 400);

    EXPECT_EQ(http_get(port, "/healthz").status, 200);
    // Two requests on one kept-alive connection.
    auto two = testsupport::http_raw(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                                           "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(two.status, 200);
    EXPECT_NE(two.body.find("ready\n"), std::string::npos) << two.body;
    ::close(idle);

    add("after1", "after.txt", "still working\n");
    EXPECT_TRUE(eventually(30s, [&] { return fx.is_final("after1"); }));
    EXPECT_TRUE(worker().alive());
}

TEST_F(HttpTest, MetricsParseStrictlyAndCountWhatHappened) {
    ASSERT_NO_FATAL_FAILURE(start());
    ASSERT_NO_FATAL_FAILURE(two_files());
    auto r = http_get(port, "/metrics");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.header("content-type").rfind("text/plain; version=0.0.4", 0), 0u) << r.header("content-type");
    auto parsed = testsupport::parse_prometheus_text(r.body);
    for (const auto& e : parsed.errors) ADD_FAILURE() << e;
    ASSERT_TRUE(parsed.errors.empty()) << r.body;

    // Prometheus's own linter as well, on the very same text.
    if (testsupport::run_command("command -v promtool").empty()) {
        if (testsupport::in_ci()) FAIL() << "promtool missing (scripts/install-deps.sh installs Debian's prometheus)";
        std::cout << "[  NOTE    ] promtool not installed: /metrics checked by the strict parser only\n";
    } else {
        testsupport::write_file(fx.dir() / "metrics.txt", r.body);
        int status = -1;
        const std::string lint = testsupport::run_command(
            "promtool check metrics < '" + (fx.dir() / "metrics.txt").string() + "' 2>&1", &status);
        EXPECT_EQ(status, 0) << lint;
        EXPECT_EQ(lint, "") << "promtool lint findings";
    }

    auto type_of = [&](const std::string& family) {
        auto it = parsed.types.find(family);
        return it == parsed.types.end() ? std::string("missing") : it->second;
    };
    const std::map<std::string, std::string> types = {
        {"ingestd_jobs_total", "counter"},           {"ingestd_stage_duration_seconds", "histogram"},
        {"ingestd_jobs_in_flight", "gauge"},         {"ingestd_stream_lag", "gauge"},
        {"ingestd_stream_pending", "gauge"},         {"ingestd_redis_errors_total", "counter"},
        {"ingestd_parser_crashes_total", "counter"}, {"ingestd_bytes_hashed_total", "counter"},
        {"ingestd_dead_letter_entries", "gauge"},    {"ingestd_build_info", "gauge"}};
    for (const auto& [family, type] : types) EXPECT_EQ(type_of(family), type) << family;

    auto value = [&](const std::string& name, const std::map<std::string, std::string>& labels) {
        for (const auto& s : parsed.samples) {
            if (s.name == name && s.labels == labels) return s.value;
        }
        return -1.0;
    };
    EXPECT_EQ(value("ingestd_jobs_total", {{"outcome", "done"}, {"type", "image"}}), 1) << r.body;
    EXPECT_EQ(value("ingestd_jobs_total", {{"outcome", "done"}, {"type", "text"}}), 1) << r.body;
    EXPECT_EQ(value("ingestd_jobs_in_flight", {}), 0);
    EXPECT_EQ(value("ingestd_bytes_hashed_total", {}),
              static_cast<double>(std::stoll(field("img1", "size_bytes")) + std::stoll(field("txt1", "size_bytes"))));
    EXPECT_EQ(value("ingestd_stage_duration_seconds_count", {{"stage", "total"}}), 2);
    EXPECT_EQ(value("ingestd_stage_duration_seconds_bucket", {{"stage", "total"}, {"le", "+Inf"}}), 2);
    bool build = false;
    for (const auto& s : parsed.samples) {
        if (s.name != "ingestd_build_info") continue;
        build = true;
        EXPECT_EQ(s.value, 1);
        for (const char* lib : {"version", "libvips", "poppler", "tesseract", "hiredis", "openssl", "libmagic"}) {
            EXPECT_FALSE(s.labels.count(lib) == 0 || s.labels.at(lib).empty()) << lib;
        }
    }
    EXPECT_TRUE(build);
}

// While it drains after SIGTERM the worker says it is not ready, but stays alive for the probe.
TEST_F(HttpTest, NotReadyWhileDraining) {
    ASSERT_NO_FATAL_FAILURE(start({{"INGEST_OCR_MODE", "force"}, {"INGEST_SHUTDOWN_GRACE_S", "60"}}));
    // Three scanned pages to OCR, about two seconds of one core each: the checks run while it does.
    add("slow1", "slow.pdf", testsupport::scanned_text_pdf(fx.dir(), 3));
    ASSERT_TRUE(eventually(30s, [&] { return field("slow1", "status") == "processing"; }));
    worker().signal(SIGTERM);
    ASSERT_TRUE(eventually(5s, [&] { return http_get(port, "/readyz").status == 503; }));
    ASSERT_TRUE(worker().alive());
    ASSERT_EQ(field("slow1", "status"), "processing") << "the job ended before the checks while draining";
    EXPECT_EQ(http_get(port, "/healthz").status, 200);
    auto stats = nlohmann::json::parse(http_get(port, "/v1/stats").body);
    EXPECT_EQ(stats["draining"], true);
    EXPECT_EQ(stats["ready"], false);
    EXPECT_EQ(stats["in_flight"], 1);
    EXPECT_EQ(worker().wait(90s), 0);
    EXPECT_EQ(field("slow1", "status"), "done");
}

// One GET and how long it took, in milliseconds.
struct TimedAnswer {
    testsupport::HttpResponse response;
    std::chrono::milliseconds took{};
};

TimedAnswer timed_get(int port, const std::string& path) {
    const auto begin = Clock::now();
    auto response = http_get(port, path);
    return {std::move(response), std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin)};
}

// Sends SIGCONT to a stopped process when it goes out of scope (or when resumed earlier).
struct StoppedProcess {
    pid_t pid;
    void resume() const { ::kill(pid, SIGCONT); }
    ~StoppedProcess() { resume(); }
};

// Redis stopped (SIGSTOP) with dashboard and file reads waiting: the io thread does not wait
// with them. The probes answer within 50 ms every time, a file read gets a 503 within the
// one-second budget, and normal answers come back once Redis resumes.
TEST_F(HttpTest, ProbesAnswerAtOnceWhileRedisIsStopped) {
    ASSERT_NO_FATAL_FAILURE(start());
    add("x", "x.txt", "x marks the spot\n");
    ASSERT_TRUE(eventually(30s, [&] { return fx.is_final("x"); }));
    ASSERT_EQ(http_get(port, "/v1/files/x").status, 200);

    const std::string info = fx.server().cli("INFO server"); // holds "process_id:<pid>"
    ASSERT_NE(info.find("process_id:"), std::string::npos) << info;
    const pid_t redis_pid = std::stoi(info.substr(info.find("process_id:") + 11));
    ASSERT_EQ(::kill(redis_pid, SIGSTOP), 0);
    const StoppedProcess stopped{redis_pid};

    std::vector<std::pair<std::string, std::future<TimedAnswer>>> reads;
    for (const char* path :
         {"/", "/v1/stats", "/v1/recent", "/v1/files/x", "/v1/files/x/thumbnail/72", "/v1/files/x"}) {
        reads.emplace_back(path, std::async(std::launch::async, timed_get, port, std::string(path)));
    }
    auto answered = [&] {
        return std::all_of(reads.begin(), reads.end(),
                           [](auto& read) { return read.second.wait_for(0s) == std::future_status::ready; });
    };
    int rounds = 0;
    const auto give_up = Clock::now() + 10s;
    while (!answered() && Clock::now() < give_up) {
        for (const char* probe : {"/healthz", "/readyz", "/metrics"}) {
            const TimedAnswer a = timed_get(port, probe);
            EXPECT_NE(a.response.status, 0) << probe;
            EXPECT_LT(a.took, 50ms) << probe << " took " << a.took.count() << " ms in round " << rounds;
        }
        ++rounds;
        reads.back().second.wait_for(20ms); // let the reads move on between rounds
    }
    EXPECT_GE(rounds, 5) << "the probes ran only " << rounds << " times while the reads waited";

    for (auto& [path, read] : reads) {
        const TimedAnswer a = read.get();
        EXPECT_LT(a.took, 1500ms) << path << " took " << a.took.count() << " ms";
        if (path == "/") {
            EXPECT_EQ(a.response.status, 200) << "the page itself reads no Redis";
        } else if (path == "/v1/stats") {
            // Answered from memory when the gauge refresh fails inside the budget, else 503.
            EXPECT_TRUE(a.response.status == 200 || a.response.status == 503) << a.response.status;
        } else {
            EXPECT_EQ(a.response.status, 503) << path;
            EXPECT_EQ(a.response.header("content-type"), "application/json") << path;
            const auto error = nlohmann::json::parse(a.response.body, nullptr, false);
            EXPECT_TRUE(error.is_object() && error.contains("error")) << path << ": " << a.response.body;
        }
    }

    stopped.resume();
    EXPECT_TRUE(eventually(10s, [&] { return http_get(port, "/v1/files/x").status == 200; }));
    EXPECT_EQ(nlohmann::json::parse(http_get(port, "/v1/files/x").body)["status"], "done");
    EXPECT_EQ(http_get(port, "/v1/recent").status, 200);
    EXPECT_TRUE(eventually(30s, [&] { return http_get(port, "/readyz").status == 200; }));
}

// The route table is data: a table of other rows routes by them (captures, 404, 405 with Allow).
TEST(RouteTable, RoutesByPatternAndRefusesByMethod) {
    using namespace worker::http;
    using beast_http::status;
    using beast_http::verb;
    const InstantHandler any = [](const Request&, ServerContext&) { return text(status::ok, "x"); };
    const std::vector<Route> table = {{{verb::get, verb::head}, "/a/{id}/b", any}, {{verb::post}, "/c", any}};
    const RouteMatch hit = match_route(table, verb::head, "/a/42/b");
    ASSERT_EQ(hit.route, &table[0]);
    EXPECT_EQ(hit.params.at("id"), "42");
    EXPECT_EQ(match_route(table, verb::get, "/a//b").refusal.status, status::not_found) << "empty capture";
    EXPECT_EQ(match_route(table, verb::post, "/a/1/b/c").refusal.status, status::not_found);
    const RouteMatch wrong_method = match_route(table, verb::get, "/c");
    EXPECT_EQ(wrong_method.refusal.status, status::method_not_allowed);
    ASSERT_EQ(wrong_method.refusal.headers.size(), 1u);
    EXPECT_EQ(wrong_method.refusal.headers[0].second, "POST");
    const RouteMatch no_row_takes_it = match_route(table, verb::put, "/nowhere");
    EXPECT_EQ(no_row_takes_it.refusal.status, status::method_not_allowed);
    EXPECT_EQ(no_row_takes_it.refusal.headers.at(0).second, "GET, HEAD, POST");
}

// The strict exposition parser itself: it must reject what Prometheus would.
TEST(PrometheusText, ParserRejectsMalformedExposition) {
    auto errors = [](const std::string& text) { return testsupport::parse_prometheus_text(text).errors.size(); };
    EXPECT_EQ(errors("# HELP a_total A.\n# TYPE a_total counter\na_total 1\n"), 0u);
    EXPECT_EQ(errors("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n"), 0u);
    EXPECT_GT(errors("a_total 1\n"), 0u) << "sample without TYPE";
    EXPECT_GT(errors("# TYPE a counter\na 1\n"), 0u) << "counter without _total";
    EXPECT_GT(errors("# TYPE a gauge\na{x=\"1} 1\n"), 0u) << "unterminated label value";
    EXPECT_GT(errors("# TYPE a gauge\na{x=\"1\"} one\n"), 0u) << "bad value";
    EXPECT_GT(errors("# TYPE a gauge\na 1\na 2\n"), 0u) << "duplicate sample";
    EXPECT_GT(errors("# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\n# TYPE a gauge\n"), 0u) << "family twice";
    EXPECT_GT(errors("# TYPE h histogram\nh_bucket{le=\"1\"} 3\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n"), 0u)
        << "buckets not cumulative";
    EXPECT_GT(errors("# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n"), 0u) << "no +Inf bucket";
    EXPECT_GT(errors("# TYPE a gauge\na 1"), 0u) << "no final newline";
    EXPECT_GT(errors("# TYPE 9a gauge\n9a 1\n"), 0u) << "bad metric name";
}

} // namespace

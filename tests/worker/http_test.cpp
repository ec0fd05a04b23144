// The HTTP endpoint against a running `ingestd worker` and a real redis-server: every route,
// HEAD, 405, 404, 400 on malformed and oversized requests, ETag/304, /v1/recent and /v1/stats
// for the dashboard, /metrics parsed strictly, readiness while draining.
#include "tests/support/corpus.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/prom_text.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/worker_process.hpp"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using testsupport::http_get;
using testsupport::http_request;
using testsupport::RedisServer;
using testsupport::TempDir;
using testsupport::WorkerProcess;
using Clock = std::chrono::steady_clock;

template <class Pred> bool eventually(std::chrono::milliseconds limit, Pred pred) {
    const auto end = Clock::now() + limit;
    while (!pred()) {
        if (Clock::now() >= end) return false;
        std::this_thread::sleep_for(50ms);
    }
    return true;
}

struct HttpTest : ::testing::Test {
    RedisServer redis;
    TempDir dir;
    std::filesystem::path store = dir.path() / "store";
    int port = testsupport::free_port();
    std::unique_ptr<WorkerProcess> worker;

    void SetUp() override { std::filesystem::create_directories(store); }

    void start(std::map<std::string, std::string> extra = {}) {
        std::map<std::string, std::string> env = {
            {"INGEST_REDIS_URL", redis.url()}, {"INGEST_STORAGE_ROOT", store.string()},
            {"INGEST_CONCURRENCY", "2"},       {"INGEST_OCR_MODE", "off"},
            {"INGEST_CONSUMER", "web1"},       {"INGEST_HTTP_ADDR", "127.0.0.1:" + std::to_string(port)}};
        for (auto& [k, v] : extra) env[k] = v;
        worker = std::make_unique<WorkerProcess>(env, dir.path() / "worker.log");
        ASSERT_TRUE(eventually(30s, [&] { return http_get(port, "/readyz").status == 200; })) << log();
    }
    std::string log() {
        auto p = dir.path() / "worker.log";
        return std::filesystem::exists(p) ? testsupport::read_file(p) : std::string();
    }
    void add(const std::string& id, const std::string& key) {
        redis.cli("XADD ingest:uploads '*' file_id " + id + " storage_key " + key + " name " + key);
    }
    std::string field(const std::string& id, const std::string& f) {
        return redis.cli("HGET ingest:file:" + id + " " + f);
    }
    bool final(const std::string& id) {
        auto st = field(id, "status");
        return st == "done" || st == "failed";
    }
    // An image with thumbnails and a text file without, both finished.
    void two_files() {
        INGEST_CORPUS_FILE(png, "img/png/hopper.png");
        std::filesystem::copy_file(png, store / "hopper.png");
        testsupport::write_file(store / "note.txt", "a note\n");
        add("img1", "hopper.png");
        add("txt1", "note.txt");
        ASSERT_TRUE(eventually(60s, [&] { return final("img1") && final("txt1"); })) << log();
        ASSERT_EQ(field("img1", "thumbnail_status"), "done") << log();
    }
};

TEST_F(HttpTest, HealthMethodsAndUnknownRoutes) {
    start();
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

TEST_F(HttpTest, FilesThumbnailsWithEtagRecentAndStats) {
    start();
    two_files();

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
        EXPECT_EQ(t.body, testsupport::read_file(store / field("img1", std::string("thumbnail_") + size + "_key")));
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
            EXPECT_EQ(row["name"], "hopper.png");
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
    redis.cli("XADD ingest:uploads '*' file_id 'bad id!' storage_key note.txt");
    EXPECT_TRUE(
        eventually(20s, [&] { return nlohmann::json::parse(http_get(port, "/v1/stats").body)["dead_letters"] == 1; }));
}

TEST_F(HttpTest, MalformedAndOversizedRequestsGet400AndDoNotDisturbTheWorker) {
    start();
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

    testsupport::write_file(store / "after.txt", "still working\n");
    add("after1", "after.txt");
    EXPECT_TRUE(eventually(30s, [&] { return final("after1"); })) << log();
    EXPECT_TRUE(worker->alive());
}

TEST_F(HttpTest, MetricsParseStrictlyAndCountWhatHappened) {
    start();
    two_files();
    auto r = http_get(port, "/metrics");
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.header("content-type").rfind("text/plain; version=0.0.4", 0), 0u) << r.header("content-type");
    auto parsed = testsupport::parse_prometheus_text(r.body);
    for (const auto& e : parsed.errors) ADD_FAILURE() << e;
    ASSERT_TRUE(parsed.errors.empty()) << r.body;

    // Prometheus's own linter as well, on the very same text.
    if (testsupport::run_command("command -v promtool").empty()) {
        if (std::getenv("CI") != nullptr && std::string(std::getenv("CI")) == "true") {
            FAIL() << "promtool missing (scripts/install-deps.sh installs Debian's prometheus package)";
        }
        std::cout << "[  NOTE    ] promtool not installed: /metrics checked by the strict parser only\n";
    } else {
        testsupport::write_file(dir.path() / "metrics.txt", r.body);
        int status = -1;
        const std::string lint = testsupport::run_command(
            "promtool check metrics < '" + (dir.path() / "metrics.txt").string() + "' 2>&1", &status);
        EXPECT_EQ(status, 0) << lint;
        EXPECT_EQ(lint, "") << "promtool lint findings";
    }

    auto type_of = [&](const std::string& family) {
        auto it = parsed.types.find(family);
        return it == parsed.types.end() ? std::string("missing") : it->second;
    };
    EXPECT_EQ(type_of("ingestd_jobs_total"), "counter");
    EXPECT_EQ(type_of("ingestd_stage_duration_seconds"), "histogram");
    EXPECT_EQ(type_of("ingestd_jobs_in_flight"), "gauge");
    EXPECT_EQ(type_of("ingestd_stream_lag"), "gauge");
    EXPECT_EQ(type_of("ingestd_stream_pending"), "gauge");
    EXPECT_EQ(type_of("ingestd_redis_errors_total"), "counter");
    EXPECT_EQ(type_of("ingestd_parser_crashes_total"), "counter");
    EXPECT_EQ(type_of("ingestd_bytes_hashed_total"), "counter");
    EXPECT_EQ(type_of("ingestd_dead_letter_entries"), "gauge");
    EXPECT_EQ(type_of("ingestd_build_info"), "gauge");

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
    INGEST_CORPUS_FILE(pdf, "pdf/scanned/linn.pdf");
    start({{"INGEST_OCR_MODE", "force"}, {"INGEST_SHUTDOWN_GRACE_S", "60"}});
    std::filesystem::copy_file(pdf, store / "slow.pdf");
    add("slow1", "slow.pdf");
    ASSERT_TRUE(eventually(30s, [&] { return field("slow1", "status") == "processing"; }));
    worker->signal(SIGTERM);
    EXPECT_TRUE(eventually(5s, [&] { return http_get(port, "/readyz").status == 503; }));
    if (worker->alive() && field("slow1", "status") == "processing") {
        EXPECT_EQ(http_get(port, "/healthz").status, 200);
        auto stats = nlohmann::json::parse(http_get(port, "/v1/stats").body);
        EXPECT_EQ(stats["draining"], true);
        EXPECT_EQ(stats["ready"], false);
    }
    EXPECT_EQ(worker->wait(90s), 0);
    EXPECT_EQ(field("slow1", "status"), "done");
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

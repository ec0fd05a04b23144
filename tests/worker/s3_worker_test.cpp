// `ingestd worker`, `submit` and `process` on the object store (INGEST_STORAGE_ROOT=s3://…)
// against s3rver on loopback: objects put with the curl CLI, events by XADD, results read
// back from Redis, the bucket and the HTTP endpoint.
#include "tests/support/generated_file.hpp"
#include "tests/support/http_client.hpp"
#include "tests/support/process_info.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/s3_server.hpp"
#include "tests/support/worker_fixture.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;
using testsupport::http_get;
using testsupport::S3Server;

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class S3Worker : public ::testing::Test {
protected:
    void SetUp() override {
        if (!S3Server::available()) GTEST_SKIP() << "s3rver is not installed (scripts/install-deps.sh)";
        m_server = std::make_unique<S3Server>();
        for (const auto& [k, v] : m_server->env()) fx.env()[k] = v;
        fx.env()["INGEST_STORAGE_ROOT"] = "s3://uploads/in";
        fx.env()["INGEST_OCR_MODE"] = "off";
    }
    std::string image_bytes(int w, int h) {
        const auto path = fx.dir() / ("img" + std::to_string(w) + "x" + std::to_string(h) + ".png");
        testsupport::write_image(path, w, h);
        return slurp(path);
    }
    std::map<std::string, std::string> cli_env() {
        std::map<std::string, std::string> env = fx.env();
        env.erase("INGEST_HTTP_ADDR");
        return env;
    }
    testsupport::WorkerFixture fx;
    std::unique_ptr<S3Server> m_server;
};

TEST_F(S3Worker, UploadsEndDoneWithOutputsAsObjectsAndThumbnailsOverHttp) {
    const int port = testsupport::free_port();
    fx.env()["INGEST_HTTP_ADDR"] = "127.0.0.1:" + std::to_string(port);
    fx.env()["INGEST_MAX_TEXT_BYTES"] = "100";
    fx.start("s3w");
    const std::string image = image_bytes(400, 300);
    m_server->put("in/up/img.png", image);
    m_server->put("in/up/long.txt", std::string(5000, 'a') + "\n");
    fx.submit("img1", "up/img.png");
    fx.submit("long1", "up/long.txt");
    fx.submit("gone1", "up/none.bin");
    ASSERT_EQ(fx.wait_final("img1"), "done") << fx.log_of("s3w");
    EXPECT_EQ(fx.field("img1", "thumbnail_status"), "done");
    const std::string key = fx.field("img1", "thumbnail_288_key");
    EXPECT_NE(m_server->headers("in/" + key).find("content-type: image/webp"), std::string::npos);
    ASSERT_EQ(fx.wait_final("long1"), "done");
    const std::string text_key = fx.field("long1", "extracted_text_key");
    ASSERT_FALSE(text_key.empty());
    EXPECT_EQ(m_server->get("in/" + text_key).size(), 5001u);
    EXPECT_EQ(fx.wait_final("gone1"), "failed");
    EXPECT_EQ(fx.field("gone1", "error_code"), "storage_missing");

    auto thumb = http_get(port, "/v1/files/img1/thumbnail/144");
    EXPECT_EQ(thumb.status, 200);
    EXPECT_EQ(thumb.body, m_server->get("in/" + fx.field("img1", "thumbnail_144_key")));

    // Identical bytes under another key: results copied server-side under the new id's keys.
    m_server->put("in/up/img-again.png", image);
    fx.submit("img2", "up/img-again.png");
    ASSERT_EQ(fx.wait_final("img2"), "done");
    EXPECT_EQ(fx.field("img2", "deduplicated_from"), "img1");
    const std::string copied = fx.field("img2", "thumbnail_288_key");
    EXPECT_NE(copied, key);
    EXPECT_EQ(m_server->get("in/" + copied), m_server->get("in/" + key));
}

TEST_F(S3Worker, ThumbnailRedirectAnswers302ToAPresignedUrl) {
    const int port = testsupport::free_port();
    fx.env()["INGEST_HTTP_ADDR"] = "127.0.0.1:" + std::to_string(port);
    fx.env()["INGEST_THUMBNAIL_REDIRECT"] = "on";
    fx.start("s3r");
    m_server->put("in/up/img.png", image_bytes(200, 100));
    fx.submit("red1", "up/img.png");
    ASSERT_EQ(fx.wait_final("red1"), "done");
    auto r = http_get(port, "/v1/files/red1/thumbnail/72");
    EXPECT_EQ(r.status, 302);
    const std::string location = r.header("location");
    EXPECT_NE(location.find("X-Amz-Expires=900"), std::string::npos) << location;
    EXPECT_EQ(testsupport::run_command("curl -sf '" + location + "'"),
              m_server->get("in/" + fx.field("red1", "thumbnail_72_key")));
}

TEST_F(S3Worker, SubmitUploadsUnderAFreshKeyAndProcessWritesToABucket) {
    fx.start("s3s");
    const auto file = fx.dir() / "submit.png";
    testsupport::write_image(file, 120, 80);
    int status = -1;
    const std::string out = testsupport::run_ingestd("submit --wait " + file.string(), cli_env(), &status);
    EXPECT_EQ(status, 0) << out;
    const auto at = out.find("\"storage_key\":\"");
    ASSERT_NE(at, std::string::npos) << out;
    const std::string key = out.substr(at + 15, out.find('"', at + 15) - at - 15);
    EXPECT_EQ(m_server->get("in/" + key), slurp(file));
    EXPECT_NE(out.find("\"status\":\"done\""), std::string::npos) << out;

    const std::string processed =
        testsupport::run_ingestd("process --id p1 --out s3://uploads/out " + file.string(), cli_env(), &status);
    EXPECT_EQ(status, 0) << processed;
    bool found = false;
    m_server->get("out/thumbnails/p1/72.webp", &found);
    EXPECT_TRUE(found) << processed;
    EXPECT_FALSE(std::filesystem::exists("s3:")) << "nothing written to a folder named after the URL";
}

TEST_F(S3Worker, GcRemovesOrphanedOutputsFromTheBucketAndKeepsLiveOnes) {
    fx.env()["INGEST_MAX_TEXT_BYTES"] = "100"; // longer text is an object of its own
    fx.start("s3gc");
    m_server->put("in/up/live.txt", std::string(5000, 'a') + "\n");
    fx.submit("live", "up/live.txt");
    ASSERT_EQ(fx.wait_final("live"), "done") << fx.log_of("s3gc");
    const std::string live_text = fx.field("live", "extracted_text_key");
    ASSERT_FALSE(live_text.empty());
    m_server->put_many({"in/thumbnails/ghost/72.webp", "in/thumbnails/ghost/144.webp", "in/text/ghost.txt"},
                       "a crash's leftovers");
    int status = -1;
    const std::string out = testsupport::run_ingestd("gc --grace 0", cli_env(), &status);
    EXPECT_EQ(status, 0) << out;
    for (const std::string key : {"thumbnails/ghost/72.webp", "thumbnails/ghost/144.webp", "text/ghost.txt"}) {
        EXPECT_NE(out.find("\"key\":\"" + key + "\""), std::string::npos) << out;
        bool found = true;
        m_server->get("in/" + key, &found);
        EXPECT_FALSE(found) << key;
    }
    bool found = false;
    m_server->get("in/" + live_text, &found);
    EXPECT_TRUE(found) << "a live file's output stays";
    m_server->get("in/up/live.txt", &found);
    EXPECT_TRUE(found) << "a live original stays";
}

TEST_F(S3Worker, MissingBucketAtStartUpExitsTwoWithOneLineNamingIt) {
    fx.env()["INGEST_STORAGE_ROOT"] = "s3://no-such-bucket/x";
    auto& w = fx.start("s3nb");
    EXPECT_EQ(w.wait(30s), 2);
    const std::string log = fx.log_of("s3nb");
    EXPECT_NE(log.find("no-such-bucket"), std::string::npos) << log;
    EXPECT_EQ(log.find("S3RVER\n"), std::string::npos) << "no secret in the message";
}

TEST_F(S3Worker, UnreachableEndpointKeepsTheWorkerAliveAndNotReady) {
    const int port = testsupport::free_port();
    fx.env()["INGEST_HTTP_ADDR"] = "127.0.0.1:" + std::to_string(port);
    fx.env()["AWS_ENDPOINT_URL"] = "http://127.0.0.1:" + std::to_string(testsupport::free_port());
    auto& w = fx.start("s3down");
    ASSERT_TRUE(eventually(20s, [&] { return http_get(port, "/healthz").status == 200; })) << fx.log_of("s3down");
    EXPECT_TRUE(eventually(10s, [&] { return http_get(port, "/readyz").status == 503; }));
    std::this_thread::sleep_for(2s);
    EXPECT_TRUE(w.alive());
    EXPECT_EQ(http_get(port, "/readyz").status, 503);
    EXPECT_NE(http_get(port, "/metrics").body.find("ingestd_storage_up 0"), std::string::npos);
}

} // namespace

// A 1 GiB object: streamed into the job's spool on disk and hashed on the way, so neither the
// worker nor its helper holds it in memory; the hash is the object's.
TEST_F(S3Worker, AGigabyteObjectEndsDoneWithBoundedMemory) {
    constexpr std::uint64_t k_mib = 1ULL << 20;
    const auto path = fx.dir() / "big.bin";
    {
        std::ofstream out(path, std::ios::binary);
        std::string block(k_mib, '\0');
        for (std::uint64_t i = 0; i < 1024; ++i) {
            for (std::size_t j = 0; j < block.size(); j += 64) block[j] = static_cast<char>((i * 131 + j) & 0xff);
            out.write(block.data(), static_cast<std::streamsize>(block.size()));
        }
    }
    const std::string sha = testsupport::run_command("sha256sum " + path.string() + " | cut -c1-64");
    m_server->put_file("in/up/big.bin", path);
    std::filesystem::remove(path); // the object store holds the only copy
    auto& w = fx.start("big", {{"INGEST_CONCURRENCY", "1"}});
    testsupport::HelperPeak peak(w.pid());
    fx.submit("big1", "up/big.bin");
    ASSERT_EQ(fx.wait_final("big1", 300s), "done") << fx.field("big1", "error");
    const long helper_kib = peak.stop();
    EXPECT_EQ(fx.field("big1", "size_bytes"), std::to_string(1024 * k_mib));
    EXPECT_EQ(fx.field("big1", "content_hash") + "\n", sha);
    const long worker_kib = testsupport::status_kib(w.pid(), "VmHWM:");
    EXPECT_LT(worker_kib, 256 * 1024) << "worker peak " << worker_kib << " KiB";
    EXPECT_LT(helper_kib, 256 * 1024) << "helper peak " << helper_kib << " KiB";
    std::cout << "[ measure ] 1 GiB object: worker VmHWM " << worker_kib / 1024 << " MiB, helper VmHWM "
              << helper_kib / 1024 << " MiB\n";
    EXPECT_TRUE(w.alive());
}

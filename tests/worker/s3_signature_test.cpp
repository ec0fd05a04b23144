// The object store against a server that verifies every SigV4 signature: OpenStack Swift's
// s3api (Debian's swift-proxy …, tests/s3/swift_s3.py) on loopback. Objects are put and read
// back with boto3 (tests/s3/s3_client.py). A wrong secret, region or clock is refused, and the
// store says so in one sentence naming the bucket and key, never a credential.
#include "core/file_error.hpp"
#include "extractors/sniff/hash.hpp"
#include "tests/support/file_error_of.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/s3_server.hpp"
#include "tests/support/worker_fixture.hpp"
#include "worker/storage/store.hpp"

#include <cstdlib>
#include <functional>
#include <optional>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using testsupport::S3Kind;
using testsupport::S3Server;
using testsupport::S3ServerOptions;

const std::string k_secret = "TOPSECRETVALUE";

using testsupport::file_error_of;

class S3Signature : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        if (!S3Server::available(S3Kind::swift, &why)) GTEST_SKIP() << why;
    }
    void start(S3ServerOptions options = {}) {
        options.kind = S3Kind::swift;
        m_server = std::make_unique<S3Server>(options);
        for (const auto& [k, v] : m_server->env()) ::setenv(k.c_str(), v.c_str(), 1);
        ::unsetenv("INGEST_S3_ADDRESSING");
    }
    // The refusal of the start-up check and of a read of up/a.bin, with the settings as they are.
    std::pair<std::optional<core::FileError>, std::optional<core::FileError>> refusals() {
        auto at_start = file_error_of([] { worker::open_store("s3://uploads/in", true); });
        const auto store = worker::open_store("s3://uploads/in", false);
        auto on_read = file_error_of([&] { store->open_input("up/a.bin", 1 << 20); });
        return {at_start, on_read};
    }
    static void expect_sentence(const std::optional<core::FileError>& e, const std::string& names,
                                const std::string& says) {
        ASSERT_TRUE(e) << "the request should have been refused";
        EXPECT_EQ(e->code(), core::ErrorCode::storage_error);
        EXPECT_FALSE(e->transient()) << "a refusal is not retried: " << e->what();
        const std::string what = e->what();
        EXPECT_NE(what.find(names), std::string::npos) << what;
        EXPECT_NE(what.find(says), std::string::npos) << what;
        EXPECT_EQ(what.find(k_secret), std::string::npos) << what;
        EXPECT_EQ(what.find("testing"), std::string::npos) << "no secret in " << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    std::unique_ptr<S3Server> m_server;
};

TEST_F(S3Signature, EverySignedRequestIsAcceptedByAVerifyingServer) {
    start();
    const std::string bytes(300000, 'x');
    m_server->put("in/up/a.bin", bytes);
    const auto store = worker::open_store("s3://uploads/in", true);
    const worker::Store::Input in = store->open_input("up/a.bin", 1 << 20);
    EXPECT_EQ(in.size, bytes.size());
    EXPECT_EQ(in.sha256_hex, extractors::sha256_hex(bytes.data(), bytes.size()));
    store->write("thumbnails/f1/72.webp", "RIFF....WEBP");
    EXPECT_NE(m_server->headers("in/thumbnails/f1/72.webp").find("content-type: image/webp"), std::string::npos);
    store->copy("thumbnails/f1/72.webp", "thumbnails/f2/72.webp");
    EXPECT_EQ(m_server->get("in/thumbnails/f2/72.webp"), "RIFF....WEBP");
    std::set<std::string> listed;
    store->list("thumbnails/", [&](const std::string& k) { listed.insert(k); });
    EXPECT_EQ(listed, (std::set<std::string>{"thumbnails/f1/72.webp", "thumbnails/f2/72.webp"}));
    store->remove_many({"thumbnails/f1/72.webp", "thumbnails/f2/72.webp"});
    bool found = true;
    m_server->get("in/thumbnails/f1/72.webp", &found);
    EXPECT_FALSE(found);
    const auto url = store->presigned_url("up/a.bin", 900);
    ASSERT_TRUE(url);
    EXPECT_EQ(testsupport::run_command("curl -sf '" + *url + "' | wc -c"), "300000\n") << *url;
}

TEST_F(S3Signature, WrongSecretIsRefusedNamingBucketAndKeyNeverTheSecret) {
    start();
    m_server->put("in/up/a.bin", "abc");
    ::setenv("AWS_SECRET_ACCESS_KEY", k_secret.c_str(), 1);
    const auto [at_start, on_read] = refusals();
    expect_sentence(at_start, "bucket uploads", "AWS_SECRET_ACCESS_KEY");
    expect_sentence(on_read, "s3://uploads/in/up/a.bin", "AWS_SECRET_ACCESS_KEY");
}

TEST_F(S3Signature, WrongRegionIsRefusedSayingWhichSettingToCheck) {
    start();
    m_server->put("in/up/a.bin", "abc");
    ::setenv("AWS_REGION", "eu-west-1", 1);
    const auto [at_start, on_read] = refusals();
    expect_sentence(at_start, "bucket uploads", "AWS_REGION");
    expect_sentence(on_read, "s3://uploads/in/up/a.bin", "AWS_REGION");
}

TEST_F(S3Signature, ClockSkewIsRefusedSayingTheClocksDiffer) {
    start({S3Kind::swift, "+1h", ""}); // the server's clock an hour ahead of this host's
    const auto [at_start, on_read] = refusals();
    expect_sentence(at_start, "bucket uploads", "clock");
    expect_sentence(on_read, "s3://uploads/in/up/a.bin", "clock");
}

TEST_F(S3Signature, WorkerWithAWrongSecretExitsTwoWithOneLine) {
    start();
    testsupport::WorkerFixture fx;
    for (const auto& [k, v] : m_server->env()) fx.env()[k] = v;
    fx.env()["INGEST_STORAGE_ROOT"] = "s3://uploads/in";
    fx.env()["AWS_SECRET_ACCESS_KEY"] = k_secret;
    auto& w = fx.start("badkey");
    EXPECT_EQ(w.wait(60s), 2);
    const std::string log = fx.log_of("badkey");
    EXPECT_NE(log.find("uploads"), std::string::npos) << log;
    EXPECT_NE(log.find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << log;
    EXPECT_EQ(log.find(k_secret), std::string::npos) << log;
}

TEST_F(S3Signature, RotatedSecretUnderARunningWorkerFailsTheJobWithStorageError) {
    start();
    testsupport::WorkerFixture fx;
    for (const auto& [k, v] : m_server->env()) fx.env()[k] = v;
    fx.env()["INGEST_STORAGE_ROOT"] = "s3://uploads/in";
    fx.env()["INGEST_OCR_MODE"] = "off";
    fx.start("rot");
    m_server->put("in/up/a.txt", "before the rotation\n");
    fx.submit("ok1", "up/a.txt");
    ASSERT_EQ(fx.wait_final("ok1", 60s), "done");
    m_server->rotate_secret("the-new-secret"); // the worker still signs with the old one
    fx.submit("rot1", "up/a.txt");
    ASSERT_EQ(fx.wait_final("rot1", 60s), "failed");
    EXPECT_EQ(fx.field("rot1", "error_code"), "storage_error");
    const std::string error = fx.field("rot1", "error");
    EXPECT_NE(error.find("s3://uploads/in/up/a.txt"), std::string::npos) << error;
    EXPECT_NE(error.find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << error;
    EXPECT_EQ(error.find("testing"), std::string::npos) << error;
    EXPECT_EQ(error.find("the-new-secret"), std::string::npos) << error;
    EXPECT_TRUE(testsupport::eventually(10s, [&] { return fx.pending() == 0; })) << "the event is settled";
}

} // namespace

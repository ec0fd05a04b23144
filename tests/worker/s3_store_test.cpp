// The object store (worker/storage/s3_store.*) against a real S3-compatible server on
// loopback (s3rver); objects are put and inspected with the curl CLI, never with the store.
#include "core/file_error.hpp"
#include "extractors/sniff/hash.hpp"
#include "tests/support/cut_proxy.hpp"
#include "tests/support/file_error_of.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/s3_server.hpp"
#include "worker/storage/s3_location.hpp"
#include "worker/storage/s3_xml.hpp"
#include "worker/storage/sigv4_presign.hpp"
#include "worker/storage/store.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using testsupport::CutProxy;
using testsupport::S3Server;

std::string random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    return s;
}

std::string read_fd(int fd, std::uint64_t size) {
    std::string s(size, '\0');
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::pread(fd, s.data() + done, s.size() - done, static_cast<off_t>(done));
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    s.resize(done);
    return s;
}

using testsupport::file_error_of;

std::optional<core::ErrorCode> code_of(const std::function<void()>& f) {
    const auto e = file_error_of(f);
    return e ? std::optional(e->code()) : std::nullopt;
}

class S3Store : public ::testing::Test {
protected:
    void SetUp() override {
        if (!S3Server::available()) GTEST_SKIP() << "s3rver is not installed (scripts/install-deps.sh)";
        m_server = std::make_unique<S3Server>();
        use_endpoint(m_server->endpoint());
    }
    void use_endpoint(const std::string& endpoint, const std::string& key_id = "S3RVER") {
        for (const auto& [k, v] : m_server->env()) ::setenv(k.c_str(), v.c_str(), 1);
        ::setenv("AWS_ENDPOINT_URL", endpoint.c_str(), 1);
        ::setenv("AWS_ACCESS_KEY_ID", key_id.c_str(), 1);
        ::unsetenv("INGEST_S3_ADDRESSING");
        m_store = worker::open_store("s3://uploads/in", true);
    }
    std::unique_ptr<S3Server> m_server;
    std::unique_ptr<worker::Store> m_store;
};

TEST_F(S3Store, ReadsAnObjectIntoAPrivateSpoolWithItsSize) {
    const std::string bytes = random_bytes(3 << 20, 1);
    m_server->put("in/up/a.bin", bytes);
    worker::Store::Input in = m_store->open_input("up/a.bin", 1 << 30);
    EXPECT_EQ(in.size, bytes.size());
    EXPECT_EQ(read_fd(in.fd.get(), in.size), bytes);
    EXPECT_EQ(in.sha256_hex, extractors::sha256_hex(bytes.data(), bytes.size())) << "hashed as it arrived";
    struct stat st {};
    ASSERT_EQ(::fstat(in.fd.get(), &st), 0);
    EXPECT_EQ(st.st_nlink, 0u) << "the spool has no name another process could open";
    EXPECT_EQ(m_store->describe("up/a.bin"), "s3://uploads/in/up/a.bin");
}

TEST_F(S3Store, TooLargeFromHeadAndMissingObject) {
    m_server->put("in/up/big.bin", random_bytes(5000, 2));
    EXPECT_EQ(code_of([&] { m_store->open_input("up/big.bin", 4999); }), core::ErrorCode::too_large);
    EXPECT_EQ(code_of([&] { m_store->open_input("up/none.bin", 1 << 20); }), core::ErrorCode::storage_missing);
}

// The lanes' look at a file (issue 20): its size and first bytes in one ranged GET.
TEST_F(S3Store, PeekGivesTheSizeAndTheFirstBytesOnly) {
    const std::string big = random_bytes(5000, 3);
    m_server->put("in/up/big.bin", big);
    m_server->put("in/up/small.bin", "%PDF-1.7\n");
    m_server->put("in/up/empty.bin", "");
    const worker::Store::Peek b = m_store->peek("up/big.bin", 1024);
    EXPECT_EQ(b.size, 5000u);
    EXPECT_EQ(b.head, big.substr(0, 1024));
    const worker::Store::Peek s = m_store->peek("up/small.bin", 1024);
    EXPECT_EQ(s.size, 9u);
    EXPECT_EQ(s.head, "%PDF-1.7\n");
    const worker::Store::Peek e = m_store->peek("up/empty.bin", 1024);
    EXPECT_EQ(e.size, 0u);
    EXPECT_EQ(e.head, "");
    EXPECT_EQ(code_of([&] { m_store->peek("up/none.bin", 1024); }), core::ErrorCode::storage_missing);
}

TEST_F(S3Store, UnknownAccessKeyIsARefusalNamingBucketAndKeyNotTheSecret) {
    m_server->put("in/up/a.bin", "abc");
    ::setenv("AWS_SECRET_ACCESS_KEY", "TOPSECRETVALUE", 1);
    const auto refused = file_error_of([&] { use_endpoint(m_server->endpoint(), "NOBODY"); });
    ASSERT_TRUE(refused) << "the start-up check should refuse the credentials";
    EXPECT_FALSE(refused->transient());
    EXPECT_NE(std::string(refused->what()).find("uploads"), std::string::npos) << refused->what();
    ::setenv("AWS_ACCESS_KEY_ID", "NOBODY", 1);
    const auto store = worker::open_store("s3://uploads/in", false);
    const auto e = file_error_of([&] { store->open_input("up/a.bin", 100); });
    ASSERT_TRUE(e) << "a refused read must throw";
    EXPECT_EQ(e->code(), core::ErrorCode::storage_error);
    EXPECT_FALSE(e->transient());
    const std::string what = e->what();
    EXPECT_NE(what.find("s3://uploads/in/up/a.bin"), std::string::npos) << what;
    EXPECT_EQ(what.find("TOPSECRETVALUE"), std::string::npos) << what;
}

TEST_F(S3Store, OutputsArePutWithContentTypeAndCacheControl) {
    m_store->write("thumbnails/f1/72.webp", "RIFF....WEBP");
    m_store->write("text/f1.txt", "hello");
    const std::string thumb = m_server->headers("in/thumbnails/f1/72.webp");
    EXPECT_NE(thumb.find("content-type: image/webp"), std::string::npos) << thumb;
    EXPECT_NE(thumb.find("cache-control:"), std::string::npos) << thumb;
    EXPECT_NE(m_server->headers("in/text/f1.txt").find("content-type: text/plain"), std::string::npos);
    EXPECT_EQ(m_server->get("in/text/f1.txt"), "hello");
}

TEST_F(S3Store, CopyListAndRemove) {
    const std::string bytes = random_bytes(100000, 3);
    m_store->write("thumbnails/f1/144.webp", bytes);
    m_store->copy("thumbnails/f1/144.webp", "thumbnails/f2/144.webp");
    EXPECT_EQ(m_server->get("in/thumbnails/f2/144.webp"), bytes);
    EXPECT_EQ(code_of([&] { m_store->copy("thumbnails/none.webp", "thumbnails/f3/1.webp"); }),
              core::ErrorCode::storage_missing);
    m_server->put("elsewhere/thumbnails/x.webp", "outside the prefix");
    std::set<std::string> keys;
    m_store->list("thumbnails/", [&](const std::string& k) { keys.insert(k); });
    EXPECT_EQ(keys, (std::set<std::string>{"thumbnails/f1/144.webp", "thumbnails/f2/144.webp"}));
    m_store->remove("thumbnails/f1/144.webp");
    m_store->remove("thumbnails/never-was.webp"); // not an error
    bool found = true;
    m_server->get("in/thumbnails/f1/144.webp", &found);
    EXPECT_FALSE(found);
}

TEST_F(S3Store, ListPagesThroughMoreThanOneListing) {
    std::vector<std::string> keys;
    for (int i = 0; i < 1005; ++i) keys.push_back("in/text/p" + std::to_string(i) + ".txt");
    m_server->put_many(keys, "x");
    int n = 0;
    m_store->list("text/", [&](const std::string&) { ++n; });
    EXPECT_EQ(n, 1005);
}

TEST_F(S3Store, RemoveManyDeletesInBatchesOfAThousand) {
    std::vector<std::string> keys, full;
    for (int i = 0; i < 1500; ++i) keys.push_back("thumbnails/f" + std::to_string(i) + "/144.webp");
    for (const auto& k : keys) full.push_back("in/" + k);
    m_server->put_many(full, "x");
    m_server->put("in/thumbnails/kept/144.webp", "kept");
    keys.push_back("thumbnails/never-was/144.webp"); // not an error
    m_store->remove_many(keys);
    std::vector<std::string> left;
    m_store->list("thumbnails/", [&](const std::string& k) { left.push_back(k); });
    EXPECT_EQ(left, std::vector<std::string>{"thumbnails/kept/144.webp"});
    m_store->remove_many({});
}

TEST_F(S3Store, DroppedConnectionResumesWithARangedGet) {
    const std::string bytes = random_bytes(4 << 20, 4);
    m_server->put("in/up/drop.bin", bytes);
    CutProxy proxy(m_server->port(), {1 << 20, "", 0});
    use_endpoint(proxy.endpoint());
    worker::Store::Input in = m_store->open_input("up/drop.bin", 1 << 30);
    EXPECT_EQ(read_fd(in.fd.get(), in.size), bytes);
    EXPECT_EQ(in.sha256_hex, extractors::sha256_hex(bytes.data(), bytes.size()));
    const std::string log = proxy.log();
    EXPECT_NE(log.find("CUT"), std::string::npos) << log;
    EXPECT_NE(log.find("Range: bytes="), std::string::npos) << log;
}

TEST_F(S3Store, ObjectReplacedMidReadIsReadAgainFromTheStart) {
    const std::string old_bytes = random_bytes(4 << 20, 5), new_bytes = random_bytes(3 << 20, 6);
    m_server->put("in/up/swap.bin", old_bytes);
    const auto file = std::filesystem::temp_directory_path() / ("ingestd-swap-" + std::to_string(::getpid()));
    std::ofstream(file, std::ios::binary).write(new_bytes.data(), static_cast<std::streamsize>(new_bytes.size()));
    const std::string replace = "curl -sf --aws-sigv4 aws:amz:us-east-1:s3 -u S3RVER:S3RVER -H 'x-amz-content-sha256: "
                                "UNSIGNED-PAYLOAD' -o /dev/null -T " +
                                file.string() + " " + m_server->endpoint() + "/uploads/in/up/swap.bin";
    CutProxy proxy(m_server->port(), {1 << 20, replace, 0});
    use_endpoint(proxy.endpoint());
    worker::Store::Input in = m_store->open_input("up/swap.bin", 1 << 30);
    std::filesystem::remove(file);
    EXPECT_EQ(in.size, new_bytes.size());
    EXPECT_TRUE(read_fd(in.fd.get(), in.size) == new_bytes) << "never half old, half new";
    EXPECT_EQ(in.sha256_hex, extractors::sha256_hex(new_bytes.data(), new_bytes.size()));
    EXPECT_NE(proxy.log().find("CUT"), std::string::npos);
}

TEST_F(S3Store, ServerRestartedMidDownloadFinishesTheRead) {
    const std::string bytes = random_bytes(2 << 20, 7);
    m_server->put("in/up/restart.bin", bytes);
    m_server->kill_hard();
    std::atomic<bool> up{false};
    std::thread back([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(700));
        m_server->start();
        up = true;
    });
    // The store's own retries (about 3 s of backoff) outlast a restart on an idle machine; on a
    // loaded one the job's retry takes over, as here: transient failures while the server is
    // down, and the first attempt begun after it is back must succeed.
    std::optional<worker::Store::Input> in;
    std::string error;
    while (!in) {
        const bool was_up = up;
        try {
            in.emplace(m_store->open_input("up/restart.bin", 1 << 30));
        } catch (const core::FileError& e) {
            if (!e.transient() || was_up) {
                error = e.what();
                break;
            }
        }
    }
    back.join();
    ASSERT_TRUE(in) << error;
    EXPECT_EQ(read_fd(in->fd.get(), in->size), bytes);
}

std::size_t count_of(const std::string& haystack, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
    return n;
}

TEST_F(S3Store, ThrottlingRepliesAreRetriedUntilTheyPass) {
    const std::string bytes = random_bytes(200000, 8);
    m_server->put("in/up/busy.bin", bytes);
    {
        CutProxy proxy(m_server->port(), {0, "", 3}); // the start-up HEAD meets the first one
        use_endpoint(proxy.endpoint());
        worker::Store::Input in = m_store->open_input("up/busy.bin", 1 << 30);
        EXPECT_EQ(read_fd(in.fd.get(), in.size), bytes);
        EXPECT_EQ(count_of(proxy.log(), "503 "), 3U) << proxy.log();
    }
    CutProxy proxy(m_server->port(), {0, "", 4});
    use_endpoint(proxy.endpoint());
    m_store->write("text/busy.txt", "written through 503s");
    m_store->write("thumbnails/busy/144.webp", bytes); // a body the proxy answers before it ends
    EXPECT_EQ(m_server->get("in/text/busy.txt"), "written through 503s");
    EXPECT_EQ(m_server->get("in/thumbnails/busy/144.webp"), bytes);
    EXPECT_EQ(count_of(proxy.log(), "503 "), 4U) << proxy.log();
}

TEST_F(S3Store, ThrottledForeverEndsTransientAfterBoundedRetries) {
    m_server->put("in/up/never.bin", "x");
    CutProxy proxy(m_server->port(), {0, "", -1});
    use_endpoint(proxy.endpoint()); // start-up does not throw: unavailable is not a refusal
    const auto started = std::chrono::steady_clock::now();
    for (const auto& call : std::vector<std::function<void()>>{[&] { m_store->open_input("up/never.bin", 100); },
                                                               [&] { m_store->write("text/never.txt", "x"); },
                                                               [&] { m_store->remove_many({"text/never.txt"}); }}) {
        const auto e = file_error_of(call);
        ASSERT_TRUE(e) << "a store answering 503 forever must fail";
        EXPECT_EQ(e->code(), core::ErrorCode::storage_error);
        EXPECT_TRUE(e->transient()) << e->what();
        EXPECT_NE(std::string(e->what()).find("HTTP 503"), std::string::npos) << e->what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(30));
    EXPECT_EQ(count_of(proxy.log(), "503 "), 1U + 3 * 6) << "the start-up HEAD, then 6 tries each";
}

TEST_F(S3Store, UnreachableEndpointIsTransient) {
    use_endpoint("http://127.0.0.1:" + std::to_string(testsupport::free_port())); // start-up does not throw
    const auto e = file_error_of([&] { m_store->open_input("up/a.bin", 100); });
    ASSERT_TRUE(e) << "no server: must throw";
    EXPECT_EQ(e->code(), core::ErrorCode::storage_error);
    EXPECT_TRUE(e->transient());
}

TEST_F(S3Store, MissingBucketAtStartUpNamesTheBucket) {
    const auto e = file_error_of([&] { worker::open_store("s3://no-such-bucket/x", true); });
    ASSERT_TRUE(e) << "a missing bucket must throw";
    EXPECT_FALSE(e->transient());
    EXPECT_NE(std::string(e->what()).find("no-such-bucket"), std::string::npos) << e->what();
}

TEST(SigV4Presign, MatchesTheAwsDocumentationExample) {
    // "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", S3 API docs.
    worker::PresignRequest r;
    r.access_key = "AKIAIOSFODNN7EXAMPLE";
    r.secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    r.host = "examplebucket.s3.amazonaws.com";
    r.path = "/test.txt";
    r.url_base = "https://examplebucket.s3.amazonaws.com/test.txt";
    r.now = 1369353600; // 20130524T000000Z
    r.expires_s = 86400;
    EXPECT_EQ(worker::presign_get(r),
              "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
              "AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-"
              "Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature="
              "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
}

TEST_F(S3Store, PresignedUrlFetchesTheObjectWithoutCredentials) {
    m_store->write("thumbnails/f9/72.webp", "presigned bytes");
    const auto url = m_store->presigned_url("thumbnails/f9/72.webp", 900);
    ASSERT_TRUE(url);
    EXPECT_NE(url->find("X-Amz-Expires=900"), std::string::npos) << *url;
    EXPECT_EQ(testsupport::run_command("curl -sf '" + *url + "'"), "presigned bytes");
}

TEST(S3Location, ParsesRootAndAddressing) {
    ::setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000/", 1);
    ::unsetenv("INGEST_S3_ADDRESSING");
    std::string problem;
    auto loc = worker::parse_s3_location("s3://bucket/a/b/", problem);
    ASSERT_TRUE(loc) << problem;
    EXPECT_EQ(loc->prefix, "a/b/");
    EXPECT_EQ(loc->object_url("k/x.txt"), "http://127.0.0.1:9000/bucket/a/b/k/x.txt");
    ::unsetenv("AWS_ENDPOINT_URL");
    ::setenv("AWS_REGION", "eu-west-1", 1);
    loc = worker::parse_s3_location("s3://bucket", problem);
    ASSERT_TRUE(loc);
    EXPECT_EQ(loc->object_url("k"), "https://bucket.s3.eu-west-1.amazonaws.com/k");
    EXPECT_FALSE(worker::parse_s3_location("s3://b", problem)) << "bucket names have 3 to 63 characters";
    EXPECT_FALSE(worker::parse_s3_location("s3://bucket/a//b", problem));
    EXPECT_FALSE(worker::parse_s3_location("s3://bucket/../x", problem));
    ::setenv("AWS_REGION", "us-east-1", 1);
}

} // namespace

TEST(S3Xml, DeleteResultErrorsAndAnEscapedRequestBody) {
    std::vector<worker::S3DeleteError> errors;
    ASSERT_TRUE(worker::parse_s3_delete_result(
        "<?xml version=\"1.0\"?><DeleteResult><Deleted><Key>a</Key></Deleted><Error><Key>in/b</Key><Code>"
        "AccessDenied</Code><Message>Access Denied</Message></Error></DeleteResult>",
        errors));
    ASSERT_EQ(errors.size(), 1U);
    EXPECT_EQ(errors[0].key, "in/b");
    EXPECT_EQ(errors[0].code, "AccessDenied");
    EXPECT_EQ(errors[0].message, "Access Denied");
    EXPECT_FALSE(worker::parse_s3_delete_result("<Error><Code>SlowDown</Code></Error>", errors));
    EXPECT_EQ(worker::s3_delete_body({"a&b", "c"}),
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Delete><Quiet>true</Quiet><Object><Key>a&amp;b</Key>"
              "</Object><Object><Key>c</Key></Object></Delete>");
}

// rediss:// and redis-sentinel:// in jobs::Redis: real redis-server with a TLS port and a
// test CA, a real Sentinel set (issue 18).
#include "jobs/redis.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/sentinel_set.hpp"
#include "tests/support/tls_files.hpp"

#include <iostream>
#include <thread>

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;

TEST(RedisUrl, ParsesTlsAndSentinelUrls) {
    auto a = jobs::parse_redis_url("rediss://user:pw@cache.example:6380/2");
    EXPECT_TRUE(a.tls.enabled);
    EXPECT_EQ(a.host, "cache.example");
    EXPECT_EQ(a.port, 6380);
    EXPECT_EQ(a.password, "pw");
    EXPECT_EQ(a.db, 2);
    EXPECT_FALSE(jobs::parse_redis_url("redis://h").tls.enabled);
    a = jobs::parse_redis_url("redis-sentinel://:pw@s1:26379,[::1]:26380,s3/mymaster/3");
    ASSERT_EQ(a.sentinels.size(), 3U);
    EXPECT_EQ(a.sentinels[0].host, "s1");
    EXPECT_EQ(a.sentinels[1].host, "::1");
    EXPECT_EQ(a.sentinels[1].port, 26380);
    EXPECT_EQ(a.sentinels[2].port, 26379);
    EXPECT_EQ(a.master_name, "mymaster");
    EXPECT_EQ(a.password, "pw");
    EXPECT_EQ(a.db, 3);
    EXPECT_FALSE(a.tls.enabled);
    for (const char* bad : {"redis-sentinel://s1:1", "redis-sentinel://s1:1/", "redis-sentinel://s1:x/m",
                            "redis-sentinel://s1:1,/m", "rediss://h:0"}) {
        EXPECT_THROW(jobs::parse_redis_url(bad), std::invalid_argument) << bad;
    }
    EXPECT_EQ(jobs::redacted_redis_url("redis-sentinel://:pw@s1:1,s2:2/m"), "redis-sentinel://:***@s1:1,s2:2/m");
}

// The TLS address of `redis`, verified against `ca_file`.
jobs::RedisAddress tls_address(const testsupport::TlsRedisServer& redis, const std::filesystem::path& ca_file) {
    jobs::RedisAddress a = jobs::parse_redis_url(redis.tls_url());
    a.tls.ca_file = ca_file.string();
    return a;
}

// What connecting to `address` throws, as text ("" when it connects).
std::string tls_refusal(const jobs::RedisAddress& address) {
    try {
        jobs::Redis(address, 2000ms).command({"PING"});
        return "";
    } catch (const jobs::RedisTlsError& e) {
        return e.what();
    }
}

TEST(RedisTls, CommandsPipelinesAndBinaryValuesOverTls) {
    testsupport::TlsRedisServer redis(false);
    jobs::Redis r(tls_address(redis, redis.ca.ca()), 2000ms);
    const std::string binary("a\0b\r\nc", 6);
    EXPECT_EQ(r.command({"SET", "k", binary}).str, "OK");
    EXPECT_EQ(r.command({"GET", "k"}).str, binary);
    const std::string big(300000, 'x'); // more than one TLS record each way
    auto replies = r.pipeline({{"SET", "big", big}, {"GET", "big"}, {"INCR", "n"}});
    ASSERT_EQ(replies.size(), 3U);
    EXPECT_EQ(replies[1].str, big);
    EXPECT_EQ(replies[2].integer, 1);
    EXPECT_EQ(redis.server.cli("GET n"), "1"); // the same server, seen through its plain port
}

TEST(RedisTls, WrongCaAndPlainPortAreTlsRefusals) {
    testsupport::TlsRedisServer redis(false);
    EXPECT_NE(tls_refusal(tls_address(redis, redis.ca.other_ca())).find("certificate verify failed"),
              std::string::npos);
    jobs::RedisAddress plain = tls_address(redis, redis.ca.ca());
    plain.port = redis.server.port(); // a port that does not speak TLS
    EXPECT_NE(tls_refusal(plain), "");
    jobs::RedisAddress wrong_name = tls_address(redis, redis.ca.ca());
    wrong_name.host = "localhost"; // the certificate names 127.0.0.1 only
    EXPECT_NE(tls_refusal(wrong_name).find("certificate verify failed"), std::string::npos);
}

TEST(RedisTls, ClientCertificateRequiredAndGiven) {
    testsupport::TlsRedisServer redis(true);
    jobs::RedisAddress a = tls_address(redis, redis.ca.ca());
    EXPECT_NE(tls_refusal(a), "") << "a server that requires a client certificate let us in without one";
    a.tls.cert_file = redis.ca.client_cert().string();
    a.tls.key_file = redis.ca.client_key().string();
    EXPECT_EQ(tls_refusal(a), "");
}

TEST(RedisTls, TimeoutsAndReconnectAsForTcp) {
    testsupport::TlsRedisServer redis(false);
    jobs::Redis r(tls_address(redis, redis.ca.ca()), 500ms);
    EXPECT_EQ(r.command({"PING"}).str, "PONG");
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(r.command({"BLPOP", "nothing", "2"}), jobs::RedisIoError); // longer than the timeout
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1500ms);
    redis.server.kill_hard();
    EXPECT_THROW(r.command({"PING"}), jobs::RedisIoError);
    redis.server.start();
    EXPECT_EQ(r.command({"PING"}).str, "PONG");
}

TEST(RedisSentinel, FindsThePrimaryAndFollowsAFailover) {
    testsupport::SentinelSet set;
    jobs::Redis r(jobs::parse_redis_url(set.url()), 1000ms);
    EXPECT_EQ(r.command({"SET", "before", "1"}).str, "OK");
    // Replication is asynchronous: the write must reach the replica before the primary dies.
    EXPECT_EQ(r.command({"WAIT", "1", "10000"}).integer, 1);
    ASSERT_EQ(r.command({"ROLE"}).elements.at(0).str, "master");
    std::string unknown = set.url();
    unknown.replace(unknown.find("/m/0"), 4, "/nosuch/0");
    try {
        jobs::Redis(jobs::parse_redis_url(unknown), 1000ms).command({"PING"});
        ADD_FAILURE() << "an unknown master name connected";
    } catch (const jobs::RedisIoError& e) {
        EXPECT_NE(std::string(e.what()).find("nosuch"), std::string::npos) << e.what();
    }
    set.kill_primary();
    const auto t0 = std::chrono::steady_clock::now();
    std::string answer;
    while (std::chrono::steady_clock::now() - t0 < 60s && answer != "OK") {
        try {
            answer = r.command({"SET", "after", "2"}).str;
        } catch (const jobs::RedisIoError&) {
            std::this_thread::sleep_for(100ms); // the poll interval: the callers' backoff
        }
    }
    ASSERT_EQ(answer, "OK") << "no write succeeded within 60 s of the primary's death";
    std::cout << "[ figures  ] writes resumed "
              << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()
              << " ms after the primary was killed\n";
    EXPECT_EQ(set.primary_port(), set.replica_port());
    EXPECT_EQ(r.command({"GET", "before"}).str, "1");
}

} // namespace

#include "jobs/redis.hpp"
#include "tests/support/redis_server.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;

TEST(RedisUrl, Parses) {
    auto a = jobs::parse_redis_url("redis://127.0.0.1:6379/0");
    EXPECT_EQ(a.host, "127.0.0.1");
    EXPECT_EQ(a.port, 6379);
    EXPECT_EQ(a.db, 0);
    a = jobs::parse_redis_url("redis://:s%40cret@cache.local:7000/3");
    EXPECT_EQ(a.password, "s@cret");
    EXPECT_EQ(a.host, "cache.local");
    EXPECT_EQ(a.port, 7000);
    EXPECT_EQ(a.db, 3);
    a = jobs::parse_redis_url("redis://user:pw@h");
    EXPECT_EQ(a.username, "user");
    EXPECT_EQ(a.port, 6379);
    a = jobs::parse_redis_url("unix:///run/redis.sock");
    EXPECT_EQ(a.unix_path, "/run/redis.sock");
    a = jobs::parse_redis_url("redis://[::1]:6380");
    EXPECT_EQ(a.host, "::1");
    EXPECT_EQ(a.port, 6380);
    for (const char* bad : {"http://x", "redis://h:notaport", "redis://h:70000", "unix://relative", "redis://h/x"}) {
        EXPECT_THROW(jobs::parse_redis_url(bad), std::invalid_argument) << bad;
    }
}

TEST(Redis, CommandsRepliesAndBinarySafety) {
    testsupport::RedisServer server;
    jobs::Redis r(jobs::parse_redis_url(server.url()), 2000ms);
    std::string binary("a\0b\r\nc", 6);
    EXPECT_EQ(r.command({"SET", "k", binary}).str, "OK");
    auto got = r.command({"GET", "k"});
    EXPECT_EQ(got.type, jobs::Reply::Type::string);
    EXPECT_EQ(got.str, binary);
    EXPECT_TRUE(r.command({"GET", "missing"}).is_nil());
    EXPECT_EQ(r.command({"INCR", "n"}).integer, 1);
    auto err = r.command({"INCR", "k"});
    EXPECT_TRUE(err.is_error());
    auto replies = r.pipeline({{"HSET", "h", "a", "1", "b", "2"}, {"HGETALL", "h"}});
    ASSERT_EQ(replies.size(), 2u);
    EXPECT_EQ(replies[1].as_pairs().size(), 2u);
}

TEST(Redis, ScriptReloadsAfterNoscript) {
    testsupport::RedisServer server;
    jobs::Redis r(jobs::parse_redis_url(server.url()), 2000ms);
    jobs::Script s("return ARGV[1] .. KEYS[1]");
    EXPECT_EQ(s.call(r, {"k"}, {"v"}).str, "vk");
    r.command({"SCRIPT", "FLUSH"});
    EXPECT_EQ(s.call(r, {"x"}, {"y"}).str, "yx");
}

TEST(Redis, IoErrorWhenDownThenReconnects) {
    testsupport::RedisServer server;
    jobs::Redis r(jobs::parse_redis_url(server.url()), 1000ms);
    EXPECT_EQ(r.command({"PING"}).str, "PONG");
    server.kill_hard();
    EXPECT_THROW(r.command({"PING"}), jobs::RedisIoError);
    EXPECT_THROW(r.command({"PING"}), jobs::RedisIoError);
    server.start();
    EXPECT_EQ(r.command({"PING"}).str, "PONG");
}

TEST(Redis, SelectsDatabase) {
    testsupport::RedisServer server;
    jobs::Redis r(jobs::parse_redis_url("redis://127.0.0.1:" + std::to_string(server.port()) + "/2"), 1000ms);
    r.command({"SET", "in2", "x"});
    EXPECT_EQ(server.cli("-n 2 GET in2"), "x");
    EXPECT_EQ(server.cli("-n 0 EXISTS in2"), "0");
}

TEST(Redis, ErrorRepliesAreCheckedIntoTypedErrors) {
    testsupport::RedisServer server;
    jobs::Redis r(jobs::parse_redis_url(server.url()), 1000ms);
    r.command({"SET", "k", "v"});
    jobs::Reply err = r.command({"LPUSH", "k", "x"});
    EXPECT_TRUE(err.error_is("WRONGTYPE"));
    EXPECT_FALSE(err.error_is("ERR"));
    EXPECT_THROW(jobs::checked(err, "LPUSH"), jobs::RedisReplyError);
    try {
        jobs::checked(r.command({"INCR", "k"}), "INCR");
        ADD_FAILURE() << "INCR of a non-number succeeded";
    } catch (const jobs::RedisReplyError& e) {
        EXPECT_TRUE(e.error_is("ERR")) << e.reply();
        EXPECT_EQ(std::string(e.what()), "INCR: " + e.reply());
    }
    EXPECT_EQ(jobs::checked(r.command({"GET", "k"}), "GET").str, "v");
}

} // namespace

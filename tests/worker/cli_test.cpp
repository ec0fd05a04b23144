// The command line as a user runs it: exit codes, JSON lines, --help.
#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/worker_process.hpp"
#include "tests/worker/command_lines.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace {

using testsupport::run_ingestd;
using testsupport::TempDir;
using Fields = std::vector<std::pair<std::string, std::string>>;

using testsupport::connect;
using testsupport::entry_fields;
using testsupport::lines_of;

TEST(Cli, HelpListsCommandsAndEveryCommandHasHelp) {
    int st = -1;
    std::string out = run_ingestd("--help", {}, &st);
    EXPECT_EQ(st, 0);
    for (const char* c : {"worker", "process", "submit", "status", "dead", "reconcile"}) {
        EXPECT_NE(out.find(c), std::string::npos) << c;
        std::string sub = run_ingestd(std::string(c) + " --help", {}, &st);
        EXPECT_EQ(st, 0) << c;
        EXPECT_FALSE(sub.empty()) << c;
    }
    EXPECT_NE(run_ingestd("worker --help", {}, &st).find("INGEST_"), std::string::npos);
}

TEST(Cli, UsageAndConfigErrorsExit2WithOneLine) {
    int st = -1;
    run_ingestd("frobnicate 2>/dev/null", {}, &st);
    EXPECT_EQ(st, 2);
    std::string err = run_ingestd("worker 2>&1", {{"INGEST_CONCURRENCY", "abc"}}, &st);
    EXPECT_EQ(st, 2);
    EXPECT_EQ(err, "ingestd: invalid INGEST_CONCURRENCY: expected a positive integer, got \"abc\"\n");
    err = run_ingestd("worker --concurrency=-1 2>&1", {}, &st);
    EXPECT_EQ(st, 2);
    EXPECT_NE(err.find("INGEST_CONCURRENCY"), std::string::npos);
    run_ingestd("process --steps ocr /dev/null 2>/dev/null", {}, &st);
    EXPECT_EQ(st, 2);
    err = run_ingestd("worker 2>&1", {{"INGEST_OCR_LANGS", "xyz"}, {"INGEST_HTTP_ADDR", "off"}}, &st);
    EXPECT_EQ(st, 2) << err;
    EXPECT_NE(err.find("xyz"), std::string::npos);
}

// ingestd alone, without ingestd-helper beside it: worker and process refuse to start
// (exit 2, naming the missing file) instead of failing every file as `crashed`.
TEST(Cli, ARedisPasswordNeverAppearsInOutput) {
    int st = -1;
    // Unreachable, unresolvable and unparsable URLs: the password is in none of the messages.
    for (const char* url : {"redis://user:s3kr1tpw@127.0.0.1:1/0", "redis://user:s3kr1tpw@bad host/0",
                            "redis://:s3kr1tpw@127.0.0.1:99999/0", "rediss-x://user:s3kr1tpw@h/0"}) {
        const std::string out = run_ingestd("status x 2>&1", {{"INGEST_REDIS_URL", url}}, &st);
        EXPECT_NE(st, 0) << url;
        EXPECT_FALSE(out.empty()) << url;
        EXPECT_EQ(out.find("s3kr1tpw"), std::string::npos) << out;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    }
    // rediss:// and redis-sentinel:// that cannot be reached: the password in no message either.
    for (const char* url : {"rediss://u:s3kr1tpw@127.0.0.1:1/0", "redis-sentinel://:s3kr1tpw@127.0.0.1:1/m"}) {
        const std::string out = run_ingestd("status x 2>&1", {{"INGEST_REDIS_URL", url}}, &st);
        EXPECT_EQ(st, 1) << out;
        EXPECT_EQ(out.find("s3kr1tpw"), std::string::npos) << out;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    }
    // A CA file for a URL without TLS is a configuration error.
    const std::string ca = run_ingestd(
        "status x 2>&1", {{"INGEST_REDIS_URL", "redis://u:s3kr1tpw@h/0"}, {"INGEST_REDIS_CA", "/etc/hostname"}}, &st);
    EXPECT_EQ(st, 2);
    EXPECT_NE(ca.find("rediss:// INGEST_REDIS_URL only"), std::string::npos) << ca;
    EXPECT_EQ(ca.find("s3kr1tpw"), std::string::npos) << ca;
    EXPECT_EQ(jobs::redacted_redis_url("redis://user:pw@h:1/0"), "redis://user:***@h:1/0");
    EXPECT_EQ(jobs::redacted_redis_url("redis://pw@h"), "redis://***@h");
    EXPECT_EQ(jobs::redacted_redis_url("redis://h:1/0"), "redis://h:1/0");
    EXPECT_EQ(jobs::redacted_redis_url("unix:///run/r.sock"), "unix:///run/r.sock");
}

TEST(Cli, WorkerAndProcessNeedTheHelperBesideThem) {
    TempDir d;
    const auto solo = d.path() / "ingestd";
    std::filesystem::copy_file(testsupport::ingestd_binary(), solo);
    testsupport::write_file(d.path() / "a.txt", "hello\n");
    for (const std::string& cmd : std::vector<std::string>{"worker", "process " + (d.path() / "a.txt").string()}) {
        int st = -1;
        const std::string err = testsupport::run_command(
            "INGEST_HTTP_ADDR=off INGEST_REDIS_URL=redis://127.0.0.1:1/0 '" + solo.string() + "' " + cmd + " 2>&1",
            &st);
        EXPECT_EQ(st, 2) << cmd << ": " << err;
        EXPECT_NE(err.find((d.path() / "ingestd-helper").string()), std::string::npos) << err;
    }
    // With the helper beside it, the same copy works.
    std::filesystem::copy_file(std::filesystem::path(testsupport::ingestd_binary()).parent_path() / "ingestd-helper",
                               d.path() / "ingestd-helper");
    std::string command = "'";
    command += solo.string();
    command += "' process --out '";
    command += (d.path() / "out").string();
    command += "' '";
    command += (d.path() / "a.txt").string();
    command += "'";
    int st = -1;
    const std::string out = testsupport::run_command(command, &st);
    EXPECT_EQ(st, 0) << out;
    EXPECT_NE(out.find("\"extracted_text\":\"hello\\n\""), std::string::npos) << out;
}

TEST(Cli, ProcessNeedsNoRedisAndPrintsOneObjectPerFile) {
    TempDir d;
    testsupport::write_file(d.path() / "a.txt", "hello, world\n");
    testsupport::write_file(d.path() / "b.bin", std::string("\x00\x01\x02\x03", 4));
    int st = -1;
    std::string out = run_ingestd("process --out " + (d.path() / "out").string() + " " + (d.path() / "a.txt").string() +
                                      " " + (d.path() / "b.bin").string(),
                                  {{"INGEST_REDIS_URL", "redis://127.0.0.1:1/0"}}, &st);
    EXPECT_EQ(st, 0) << out;
    auto nl = out.find('\n');
    ASSERT_NE(nl, std::string::npos);
    auto a = nlohmann::json::parse(out.substr(0, nl));
    EXPECT_EQ(a["file_id"], "853ff93762a06ddbf722c4ebe9ddd66d8f63ddaea97f521c3ecc20da7c976020");
    EXPECT_EQ(a["content_hash"], a["file_id"]);
    EXPECT_EQ(a["path"], (d.path() / "a.txt").string());
    EXPECT_EQ(a["status"], "done");
    for (auto& [k, v] : a.items()) EXPECT_TRUE(v.is_string()) << k;
    auto b = nlohmann::json::parse(out.substr(nl + 1));
    EXPECT_EQ(b["extraction_status"], "not_applicable");
    out = run_ingestd("process --id my-id --out " + (d.path() / "out").string() + " " + (d.path() / "nothere").string(),
                      {}, &st);
    EXPECT_EQ(st, 1);
    EXPECT_EQ(nlohmann::json::parse(out)["file_id"], "my-id");
    EXPECT_EQ(nlohmann::json::parse(out)["error_code"], "storage_missing");
}

TEST(Cli, SubmitStatusAndWait) {
    testsupport::RedisServer redis;
    TempDir d;
    std::map<std::string, std::string> env = {{"INGEST_REDIS_URL", redis.url()},
                                              {"INGEST_STORAGE_ROOT", (d.path() / "store").string()}};
    testsupport::write_file(d.path() / "a.txt", "submitted\n");
    int st = -1;
    auto sub = nlohmann::json::parse(run_ingestd("submit " + (d.path() / "a.txt").string(), env, &st));
    EXPECT_EQ(st, 0);
    std::string id = sub["file_id"];
    std::string key = sub["storage_key"];
    EXPECT_TRUE(std::filesystem::exists(d.path() / "store" / key));
    auto pending = nlohmann::json::parse(run_ingestd("status " + id, env, &st));
    EXPECT_EQ(st, 0);
    EXPECT_EQ(pending["status"], "pending");
    EXPECT_EQ(pending["storage_key"], key);
    run_ingestd("status no-such-id 2>/dev/null", env, &st);
    EXPECT_EQ(st, 3);
    run_ingestd("status --wait --timeout 1 no-such-id 2>/dev/null", env, &st);
    EXPECT_EQ(st, 3);
    auto w = std::make_unique<testsupport::WorkerProcess>(env, d.path() / "worker.log");
    auto done = nlohmann::json::parse(run_ingestd("status --wait --timeout 60 " + id, env, &st));
    EXPECT_EQ(st, 0);
    EXPECT_EQ(done["status"], "done");
    EXPECT_EQ(done["extracted_text"], "submitted\n");
    auto waited = nlohmann::json::parse(run_ingestd("submit --wait " + (d.path() / "a.txt").string(), env, &st));
    EXPECT_EQ(st, 0);
    EXPECT_EQ(waited["status"], "done");
}

// submit writes the pending metadata, the event and a `pending` results line, and the event
// id it prints is the stream entry's; --steps is normalised as an event's would be.
TEST(Cli, SubmitWritesPendingMetadataEventAndResultsLine) {
    testsupport::RedisServer server;
    TempDir d;
    const std::map<std::string, std::string> env = {{"INGEST_REDIS_URL", server.url()},
                                                    {"INGEST_STORAGE_ROOT", (d.path() / "store").string()}};
    testsupport::write_file(d.path() / "b.txt", "twelve bytes");
    int st = -1;
    const std::string out = run_ingestd("submit --steps thumbnails,text " + (d.path() / "b.txt").string(), env, &st);
    ASSERT_EQ(st, 0) << out;
    const auto printed = nlohmann::ordered_json::parse(out);
    const std::string id = printed["file_id"], key = printed["storage_key"], event = printed["event_id"];
    EXPECT_EQ(key, "uploads/" + id.substr(1, 2) + "/" + id);
    jobs::Redis redis = connect(server);
    const Fields meta = redis.command({"HGETALL", "ingest:file:" + id}).as_pairs();
    ASSERT_EQ(meta.size(), 7u);
    EXPECT_EQ(meta[0], (std::pair<std::string, std::string>{"status", "pending"}));
    EXPECT_EQ(meta[1].second, key);
    EXPECT_EQ(meta[2].second, "text,thumbnails");
    EXPECT_EQ(meta[3].second, "b.txt");
    EXPECT_EQ(meta[6].first, "submitted_at");
    const Fields expected_event = {
        {"file_id", id}, {"storage_key", key}, {"name", "b.txt"}, {"size", "12"}, {"steps", "text,thumbnails"}};
    EXPECT_EQ(entry_fields(redis, "ingest:uploads", event), expected_event);
    const jobs::Reply results = redis.command({"XRANGE", "ingest:results", "-", "+"});
    ASSERT_EQ(results.elements.size(), 1u);
    const Fields expected_result = {{"file_id", id}, {"status", "pending"}, {"event_id", ""}};
    EXPECT_EQ(results.elements[0].elements[1].as_pairs(), expected_result);
}

// status --wait on a file that stays pending: its metadata, a message, exit 1.
TEST(Cli, StatusWaitOnAFileThatStaysPendingExits1) {
    testsupport::RedisServer server;
    jobs::Redis redis = connect(server);
    redis.command({"HSET", "ingest:file:slow1", "status", "pending", "storage_key", "up/slow1"});
    int st = -1;
    const std::string out =
        run_ingestd("status --wait --timeout 1 slow1 2>/dev/null", {{"INGEST_REDIS_URL", server.url()}}, &st);
    EXPECT_EQ(st, 1);
    EXPECT_EQ(out, "{\"file_id\":\"slow1\",\"status\":\"pending\",\"storage_key\":\"up/slow1\"}\n");
    const std::string err =
        run_ingestd("status --wait --timeout 1 slow1 2>&1 >/dev/null", {{"INGEST_REDIS_URL", server.url()}}, &st);
    EXPECT_EQ(err, "ingestd status: slow1 not final after 1 s\n");
}

// dead list prints each dead letter with its dead_id; dead retry moves those asked for (or
// all) back to the stream without their dead_* fields, and deletes them from the dead stream.
TEST(Cli, DeadListAndRetryMoveLettersBackToTheStream) {
    testsupport::RedisServer server;
    jobs::Redis redis = connect(server);
    const std::string dead = "ingest:uploads:dead";
    const std::string d1 = redis
                               .command({"XADD", dead, "*", "file_id", "d1", "storage_key", "up/d1", "steps", "text",
                                         "dead_reason", "r1", "dead_deliveries", "3", "dead_source_id", "1-1"})
                               .str;
    const std::string d2 = redis
                               .command({"XADD", dead, "*", "file_id", "d2", "storage_key", "up/d2", "dead_reason",
                                         "r2", "dead_deliveries", "5", "dead_source_id", "1-2"})
                               .str;
    const std::string d3 =
        redis.command({"XADD", dead, "*", "dead_reason", "no file_id", "dead_deliveries", "1", "dead_source_id", "1-3"})
            .str;
    const std::map<std::string, std::string> env = {{"INGEST_REDIS_URL", server.url()}};
    int st = -1;
    const auto listed = lines_of(run_ingestd("dead list", env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(listed.size(), 3u);
    EXPECT_EQ(listed[0].dump(),
              "{\"file_id\":\"d1\",\"storage_key\":\"up/d1\",\"steps\":\"text\",\"dead_reason\":\"r1\","
              "\"dead_deliveries\":\"3\",\"dead_source_id\":\"1-1\",\"dead_id\":\"" +
                  d1 + "\"}");
    EXPECT_EQ(listed[2].dump(), "{\"dead_reason\":\"no file_id\",\"dead_deliveries\":\"1\",\"dead_source_id\":\"1-3\","
                                "\"dead_id\":\"" +
                                    d3 + "\"}");

    auto retried = lines_of(run_ingestd("dead retry d2", env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(retried.size(), 1u);
    EXPECT_EQ(retried[0]["file_id"], "d2");
    EXPECT_EQ(retried[0]["dead_id"], d2);
    const Fields d2_event = {{"file_id", "d2"}, {"storage_key", "up/d2"}};
    EXPECT_EQ(entry_fields(redis, "ingest:uploads", retried[0]["event_id"]), d2_event);
    EXPECT_EQ(redis.command({"XLEN", dead}).integer, 2);

    // d3 has no file_id: it would die again at once, so it stays, reported as skipped.
    retried = lines_of(run_ingestd("dead retry 2>/dev/null", env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(retried.size(), 2u);
    const Fields d1_event = {{"file_id", "d1"}, {"storage_key", "up/d1"}, {"steps", "text"}};
    EXPECT_EQ(entry_fields(redis, "ingest:uploads", retried[0]["event_id"]), d1_event);
    EXPECT_EQ(retried[1]["file_id"], "");
    EXPECT_EQ(retried[1]["dead_id"], d3);
    EXPECT_FALSE(retried[1]["skipped"].get<std::string>().empty());
    EXPECT_EQ(redis.command({"XLEN", dead}).integer, 1);
    EXPECT_EQ(lines_of(run_ingestd("dead list", env, &st)).size(), 1u);
    EXPECT_EQ(st, 0);
}

// reconcile, with names from the configuration: a processing file is aged by started_at, a
// pending one without any time is skipped ("age unknown"), one without storage_key is left alone, and
// the event carries steps, content_type, name and owner from the metadata.
TEST(Cli, ReconcileReappendsFromTheMetadataUnderConfiguredNames) {
    testsupport::RedisServer server;
    TempDir d;
    const auto err = d.path() / "err";
    jobs::Redis redis = connect(server);
    const std::string old_ts = "2020-01-01T00:00:00.000Z", now_ts = jobs::utc_now_rfc3339();
    redis.command({"HSET", "t:file:p1", "status", "processing", "storage_key", "up/p1", "steps", "text",
                   "declared_content_type", "text/plain", "name", "p1.txt", "owner", "alice", "started_at", old_ts,
                   "submitted_at", now_ts});
    redis.command({"HSET", "t:file:p2", "status", "processing", "storage_key", "up/p2", "started_at", now_ts,
                   "submitted_at", old_ts});
    redis.command({"HSET", "t:file:p3", "status", "pending", "submitted_at", old_ts});
    redis.command({"HSET", "t:file:p4", "status", "pending", "storage_key", "up/p4"});
    redis.command({"HSET", "ingest:file:p5", "status", "pending", "storage_key", "up/p5"});
    const std::map<std::string, std::string> env = {
        {"INGEST_REDIS_URL", server.url()}, {"INGEST_KEY_PREFIX", "t:"}, {"INGEST_STREAM", "t:up"}};
    int st = -1;
    std::map<std::string, nlohmann::ordered_json> by_id;
    for (const auto& line : lines_of(run_ingestd("reconcile --older-than 600 2>" + err.string(), env, &st)))
        by_id[line["file_id"]] = line;
    EXPECT_EQ(st, 0);
    ASSERT_EQ(by_id.size(), 1u);
    ASSERT_TRUE(by_id.count("p1"));
    EXPECT_EQ(by_id["p1"]["status"], "processing");
    EXPECT_NE(testsupport::read_file(err).find("p4 (pending): age unknown"), std::string::npos);
    const Fields p1_event = {{"file_id", "p1"},  {"storage_key", "up/p1"},
                             {"steps", "text"},  {"content_type", "text/plain"},
                             {"name", "p1.txt"}, {"owner", "alice"}};
    EXPECT_EQ(entry_fields(redis, "t:up", by_id["p1"]["event_id"]), p1_event);
    // Its event is in the stream now, undelivered: a second run re-appends nothing.
    EXPECT_EQ(run_ingestd("reconcile --older-than 600 2>/dev/null", env, &st), "");
    EXPECT_EQ(redis.command({"XLEN", "t:up"}).integer, 1);
}

} // namespace

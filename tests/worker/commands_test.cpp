// The operator's commands and messages as a newcomer meets them: retry, dead purge, dead
// retry's refusals, submit's ids before a failure, unknown words, per-command help.
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
using Env = std::map<std::string, std::string>;
using Fields = std::vector<std::pair<std::string, std::string>>;

using testsupport::connect;
using testsupport::entry_fields;
using testsupport::lines_of;

// retry re-appends a file's event from its metadata whatever its status, keeping name,
// owner, steps and ocr_langs; an unknown id exits 3 and the known ones are still retried.
TEST(Commands, RetryReappendsFromMetadataAndUnknownExits3) {
    testsupport::RedisServer server;
    jobs::Redis redis = connect(server);
    redis.command({"HSET", "ingest:file:r1", "status", "done", "storage_key", "up/r1", "steps", "text", "name",
                   "r1.pdf", "owner", "bob", "ocr_langs", "deu", "declared_content_type", "application/pdf",
                   "extraction_status", "failed"});
    const Env env = {{"INGEST_REDIS_URL", server.url()}};
    int st = -1;
    auto lines = lines_of(run_ingestd("retry r1", env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0]["file_id"], "r1");
    const Fields expected = {
        {"file_id", "r1"},  {"storage_key", "up/r1"}, {"steps", "text"},   {"content_type", "application/pdf"},
        {"name", "r1.pdf"}, {"owner", "bob"},         {"ocr_langs", "deu"}};
    EXPECT_EQ(entry_fields(redis, "ingest:uploads", lines[0]["event_id"]), expected);

    const std::string out = run_ingestd("retry nosuch r1 '../bad' 2>&1", env, &st);
    EXPECT_EQ(st, 3) << out;
    EXPECT_NE(out.find("unknown file id nosuch"), std::string::npos) << out;
    EXPECT_NE(out.find("\"r1\""), std::string::npos) << out;
    EXPECT_EQ(redis.command({"XLEN", "ingest:uploads"}).integer, 2);
}

// dead purge prints what it deletes (all, or the given ids); dead retry and dead purge of an
// id without a dead letter say so and exit 3.
TEST(Commands, DeadPurgeAndUnknownDeadIds) {
    testsupport::RedisServer server;
    jobs::Redis redis = connect(server);
    const std::string dead = "ingest:uploads:dead";
    for (const char* id : {"d1", "d2", "d3"}) {
        redis.command({"XADD", dead, "*", "file_id", id, "storage_key", std::string("up/") + id, "dead_reason", "r",
                       "dead_deliveries", "6", "dead_source_id", "1-1"});
    }
    const Env env = {{"INGEST_REDIS_URL", server.url()}};
    int st = -1;
    std::string out = run_ingestd("dead retry nosuchid 2>&1", env, &st);
    EXPECT_EQ(st, 3);
    EXPECT_NE(out.find("nosuchid"), std::string::npos) << out;
    EXPECT_EQ(redis.command({"XLEN", "ingest:uploads"}).integer, 0);

    auto lines = lines_of(run_ingestd("dead purge d2", env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0]["file_id"], "d2");
    EXPECT_EQ(lines[0]["dead_reason"], "r");
    EXPECT_EQ(redis.command({"XLEN", dead}).integer, 2);

    run_ingestd("dead purge d2 2>/dev/null", env, &st);
    EXPECT_EQ(st, 3);
    lines = lines_of(run_ingestd("dead purge", env, &st));
    EXPECT_EQ(st, 0);
    EXPECT_EQ(lines.size(), 2u);
    EXPECT_EQ(redis.command({"XLEN", dead}).integer, 0);
    EXPECT_EQ(run_ingestd("dead purge", env, &st), "");
    EXPECT_EQ(st, 0);
}

// A dead letter whose event no worker would accept (bad storage_key) is skipped and reported.
TEST(Commands, DeadRetrySkipsEntriesThatCanNeverSucceed) {
    testsupport::RedisServer server;
    jobs::Redis redis = connect(server);
    const std::string dead = "ingest:uploads:dead";
    redis.command({"XADD", dead, "*", "file_id", "bad1", "storage_key", "../etc/passwd", "dead_reason", "r"});
    redis.command({"XADD", dead, "*", "file_id", "good1", "storage_key", "up/good1", "dead_reason", "r"});
    int st = -1;
    const auto lines = lines_of(run_ingestd("dead retry 2>/dev/null", {{"INGEST_REDIS_URL", server.url()}}, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0]["file_id"], "bad1");
    EXPECT_TRUE(lines[0].contains("skipped"));
    EXPECT_FALSE(lines[0].contains("event_id"));
    EXPECT_EQ(lines[1]["file_id"], "good1");
    EXPECT_TRUE(lines[1].contains("event_id"));
    EXPECT_EQ(redis.command({"XLEN", dead}).integer, 1);
    EXPECT_EQ(redis.command({"XLEN", "ingest:uploads"}).integer, 1);
}

// submit good missing --wait: the first file is in the queue, so its ids are printed before
// the error about the second, and the exit code is 2.
TEST(Commands, SubmitPrintsIdsBeforeALaterFailure) {
    testsupport::RedisServer server;
    TempDir d;
    testsupport::write_file(d.path() / "good.txt", "good\n");
    std::filesystem::create_directories(d.path() / "store");
    const Env env = {{"INGEST_REDIS_URL", server.url()}, {"INGEST_STORAGE_ROOT", (d.path() / "store").string()}};
    int st = -1;
    const std::string cmd = "submit " + (d.path() / "good.txt").string() + " " + (d.path() / "missing.pdf").string();
    const auto lines = lines_of(run_ingestd(cmd + " --wait 2>/dev/null", env, &st));
    EXPECT_EQ(st, 2);
    ASSERT_EQ(lines.size(), 1u);
    const std::string id = lines[0]["file_id"];
    jobs::Redis redis = connect(server);
    EXPECT_EQ(redis.command({"HGET", "ingest:file:" + id, "status"}).str, "pending");
}

// submit --ocr-langs puts the languages on each event and in the pending metadata (for
// submit the flag is the event's field; INGEST_OCR_LANGS is the workers' setting); when the
// event is lost, reconcile re-appends it with them. A malformed list is refused up front.
TEST(Commands, SubmitOcrLangsReachTheEventAndReconcileKeepsThem) {
    testsupport::RedisServer server;
    TempDir d;
    testsupport::write_file(d.path() / "scan.png", "not really a png\n");
    std::filesystem::create_directories(d.path() / "store");
    const Env env = {{"INGEST_REDIS_URL", server.url()}, {"INGEST_STORAGE_ROOT", (d.path() / "store").string()}};
    int st = -1;
    const auto lines =
        lines_of(run_ingestd("submit --ocr-langs deu+fra " + (d.path() / "scan.png").string(), env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(lines.size(), 1u);
    const std::string id = lines[0]["file_id"], event_id = lines[0]["event_id"];
    jobs::Redis redis = connect(server);
    const Fields event = entry_fields(redis, "ingest:uploads", event_id);
    EXPECT_NE(std::find(event.begin(), event.end(), std::pair<std::string, std::string>{"ocr_langs", "deu+fra"}),
              event.end());
    EXPECT_EQ(redis.command({"HGET", "ingest:file:" + id, "ocr_langs"}).str, "deu+fra");

    // The event is lost (trimmed before any worker read it) and the file has waited an hour.
    redis.command({"XDEL", "ingest:uploads", event_id});
    redis.command({"HSET", "ingest:file:" + id, "submitted_at", "2020-01-01T00:00:00.000Z"});
    const auto reconciled = lines_of(run_ingestd("reconcile --older-than 600", env, &st));
    EXPECT_EQ(st, 0);
    ASSERT_EQ(reconciled.size(), 1u);
    const Fields again = entry_fields(redis, "ingest:uploads", reconciled[0]["event_id"]);
    EXPECT_NE(std::find(again.begin(), again.end(), std::pair<std::string, std::string>{"ocr_langs", "deu+fra"}),
              again.end());

    const std::string out =
        run_ingestd("submit --ocr-langs 'deu fra' " + (d.path() / "scan.png").string() + " 2>&1", env, &st);
    EXPECT_EQ(st, 2) << out;
    EXPECT_NE(out.find("invalid --ocr-langs"), std::string::npos) << out;
    EXPECT_EQ(redis.command({"XLEN", "ingest:uploads"}).integer, 1);
}

// Messages: the unknown word and the commands; ranges in words; each command's --help has
// only its flags, typed; a missing storage root stops the worker with one line naming it.
TEST(Commands, MessagesANewcomerGetsRight) {
    int st = -1;
    std::string out = run_ingestd("frobnicate 2>&1", {}, &st);
    EXPECT_EQ(st, 2);
    EXPECT_NE(out.find("unknown command \"frobnicate\""), std::string::npos) << out;
    EXPECT_NE(out.find("retry"), std::string::npos) << out;
    EXPECT_NE(out.find("dead"), std::string::npos) << out;

    out = run_ingestd("status x --timeout 0 2>&1", {}, &st);
    EXPECT_EQ(st, 2);
    EXPECT_NE(out.find("more than zero seconds"), std::string::npos) << out;
    EXPECT_LT(out.size(), 200u) << out;

    const std::string status_help = run_ingestd("status --help", {}, &st);
    EXPECT_EQ(st, 0);
    EXPECT_EQ(status_help.find("--concurrency"), std::string::npos) << status_help;
    EXPECT_EQ(status_help.find("TEXT"), std::string::npos) << status_help;
    EXPECT_NE(status_help.find("--redis-url URL"), std::string::npos) << status_help;
    const std::string worker_help = run_ingestd("worker --help", {}, &st);
    EXPECT_NE(worker_help.find("--max-file-bytes BYTES"), std::string::npos) << worker_help;
    EXPECT_NE(worker_help.find("--concurrency N"), std::string::npos) << worker_help;

    TempDir d;
    out = run_ingestd("worker 2>&1",
                      {{"INGEST_STORAGE_ROOT", (d.path() / "nonexistent").string()},
                       {"INGEST_HTTP_ADDR", "off"},
                       {"INGEST_LOG_LEVEL", "warning"},
                       {"INGEST_REDIS_URL", "redis://127.0.0.1:1/0"}},
                      &st);
    EXPECT_EQ(st, 2) << out;
    EXPECT_NE(out.find((d.path() / "nonexistent").string()), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_FALSE(std::filesystem::exists(d.path() / "nonexistent"));
}

} // namespace

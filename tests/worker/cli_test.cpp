// The command line as a user runs it: exit codes, JSON lines, --help.
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/worker_process.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace {

using testsupport::run_ingestd;
using testsupport::TempDir;

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

} // namespace

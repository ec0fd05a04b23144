#pragma once

#include "jobs/redis.hpp"
#include "tests/support/worker_fixture.hpp"

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace delivery {

/// The upload stream the worker reads with its default configuration.
inline const std::string k_stream = "ingest:uploads";

/// The chaos schedule's seed: INGESTD_CHAOS_SEED when set (to replay a run), else a fresh one.
unsigned chaos_seed();

/// The status code of `GET path` on 127.0.0.1:`port`, or 0 when nothing answers.
int http_status(int port, const std::string& path);

/// What a delivery scenario did to its events.
struct Figures {
    std::size_t events = 0, kills = 0, commits = 0, duplicates = 0, lost = 0, restarted = 0;
    /// One line: "N events, N kills, N commits, N duplicates, N lost (N started more than once)".
    std::string str() const;
};

/// The delivery scenarios' fixture: a WorkerFixture with Redis's AOF on (Redis is killed and
/// restarted), a one-second claim timeout, and the figures each scenario prints.
struct DeliveryTest : ::testing::Test {
    testsupport::WorkerFixture fx{true};

    void SetUp() override;

    /// One Redis command on the fixture's connection.
    jobs::Reply cmd(const std::vector<std::string>& args) { return fx.redis().command(args); }
    /// One metadata field of `id`.
    std::string meta(const std::string& id, const std::string& field) { return fx.field(id, field); }
    /// Entries in the results stream.
    long long results_len() { return cmd({"XLEN", "ingest:results"}).integer; }
    /// The first pending entry has been idle for at least `ms`: a worker may claim it.
    bool pending_idle_for(long long ms);
    /// Counts commits, duplicates and lost events among `ids` from the results stream.
    Figures figures(const std::vector<std::string>& ids, std::size_t kills);
    /// Prints the figures with the time since `t0` and records them in the test's XML.
    void report(const Figures& f, std::chrono::steady_clock::time_point t0);
    /// Every event done, committed once, nothing left pending.
    void expect_all_done_once(const std::vector<std::string>& ids, const Figures& f);
    /// Submits `n` small files (texts, JSON, HTML, opaque bytes, images made with libvips) as
    /// `<prefix><i>`; returns their ids.
    std::vector<std::string> submit_mixed(int n, const std::string& prefix);
    /// Writes a scanned PDF of `pages` pages at `key`: its OCR takes seconds, far longer than
    /// the claim timeout.
    void put_slow_pdf(const std::string& key, int pages);

private:
    std::vector<std::filesystem::path> make_images();
    std::string lines_naming(const std::string& which);
};

} // namespace delivery

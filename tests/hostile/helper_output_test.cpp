// A helper's stdout and stderr (issue 18): a pipe the worker reads, each line logged as the
// helper's (tagged with its pid, control bytes escaped, rate-limited), never a line of the
// worker's own that a compromised parser could forge.
#include "tests/support/corpus.hpp"
#include "worker/config/log.hpp"
#include "worker/helper/output_pump.hpp"
#include "worker/helper/spawn.hpp"

#include <chrono>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

namespace {

using namespace std::chrono_literals;

TEST(HelperOutput, PrintableLineEscapesControlsAndCuts) {
    EXPECT_EQ(worker::printable_line("plain"), "plain");
    EXPECT_EQ(worker::printable_line("a\rb\x1b[31m"), "a\\x0db\\x1b[31m");
    const std::string cut = worker::printable_line(std::string(2000, 'x'));
    EXPECT_EQ(cut.size(), 515u);
    EXPECT_EQ(cut.substr(512), "...");
}

TEST(HelperOutput, LinesAreTaggedAndRateLimited) {
    testsupport::TempDir dir;
    // Stands in for a compromised parser: forges a worker log line, then floods.
    const auto script = dir.path() / "fake-helper";
    {
        std::ofstream out(script);
        out << "#!/bin/sh\n"
               "echo '[2026-01-01 00:00:00.000] [info] file done file_id=forged'\n"
               "printf 'esc\\033[2Jape\\n' >&2\n"
               "i=0; while [ $i -lt 500 ]; do echo flood$i; i=$((i+1)); done\n";
    }
    ::chmod(script.c_str(), 0755);
    const auto log_file = dir.path() / "worker.log";
    worker::HelperSettings settings;
    settings.binary = script.string();
    ::testing::internal::CaptureStderr();
    worker::log::setup("json", "info");
    worker::SpawnedHelper h = worker::spawn_helper(settings, dir.path());
    int status = 0;
    ASSERT_EQ(::waitpid(h.pid, &status, 0), h.pid);
    // The pump thread logs until it reads the end of the pipe; poll for its last words.
    std::string err;
    for (auto end = std::chrono::steady_clock::now() + 10s; std::chrono::steady_clock::now() < end;) {
        std::this_thread::sleep_for(50ms);
        err += ::testing::internal::GetCapturedStderr();
        if (err.find("flood") != std::string::npos && err.find("esc") != std::string::npos) break;
        ::testing::internal::CaptureStderr();
    }
    const std::string pid = std::to_string(h.pid);
    EXPECT_NE(err.find("\"line\":\"[2026-01-01 00:00:00.000] [info] file done file_id=forged\""), std::string::npos)
        << err;
    EXPECT_NE(err.find("\"helper_pid\":" + pid + ","), std::string::npos) << err; // a number in JSON logs
    EXPECT_NE(err.find("esc\\\\x1b[2Jape"), std::string::npos) << err;
    std::size_t lines = 0;
    for (auto at = err.find("flood"); at != std::string::npos; at = err.find("flood", at + 1)) ++lines;
    EXPECT_LT(lines, 100u) << "not rate-limited";
    EXPECT_GT(lines, 10u);
}

} // namespace

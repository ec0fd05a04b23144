// Parsers with bounded memory and inputs that change under them (issue 18), through a real
// `ingestd worker`, its helper processes and redis-server: a 600 MiB text file ends `done`
// with its whole text spilled to storage and the helper far under its memory budget; a
// stored file truncated while the worker reads it never leaves an inconsistent record.
#include "extractors/sniff/hash.hpp"
#include "tests/support/process_info.hpp"
#include "tests/support/worker_fixture.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using testsupport::eventually;

constexpr std::uint64_t k_mib = 1ULL << 20;

// Valid UTF-8 without control characters other than newlines, so that its clean text is the
// bytes themselves. The block's length is no multiple of its characters' lengths: the worker's
// 1 MiB reads cut two-, three- and four-byte characters in half.
std::string text_block() {
    const std::string line = "ingestd line: plain ascii, caf\xC3\xA9, \xE2\x82\xAC 12, \xF0\x9F\x98\x80 done\n";
    std::string block;
    while (block.size() + line.size() <= k_mib + 7) block += line;
    return block;
}

// Writes `total` bytes of text_block() repeated (its last copy cut at a line) to `path`.
std::uint64_t write_text_file(const fs::path& path, std::uint64_t total) {
    const std::string block = text_block();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(std::strerror(errno));
    std::uint64_t written = 0;
    while (written + block.size() <= total) {
        if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) break;
        written += block.size();
    }
    ::close(fd);
    return written;
}

std::string sha256_of(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "cannot open " + path.string();
    const auto h = extractors::sha256_fd(fd);
    ::close(fd);
    return h.sha256_hex;
}

// The helper's memory budget in this test: RLIMIT_DATA is INGEST_JOB_MEMORY_MB + 256 MiB
// = 512 MiB, less than the 1.2 GB the text used to need (held twice), more than the engines.
constexpr const char* k_job_memory_mb = "256";

TEST(ParserBounds, A600MiBTextFileEndsDoneWithItsWholeTextSpilledAndTheHelperUnderBudget) {
    testsupport::WorkerFixture fx;
    const fs::path input = fx.store() / "big.txt";
    const std::uint64_t size = write_text_file(input, 600 * k_mib);
    ASSERT_GE(size, 599 * k_mib);
    const std::string input_sha = sha256_of(input);
    auto& w = fx.start("big", {{"INGEST_CONCURRENCY", "1"},
                               {"INGEST_JOB_MEMORY_MB", k_job_memory_mb},
                               {"INGEST_OCR_MODE", "off"},
                               {"INGEST_JOB_TIMEOUT_S", "300"}});
    ASSERT_TRUE(fx.wait_for_log("big", "consumer group ready", 60s));
    testsupport::HelperPeak peak(w.pid());
    const auto t0 = std::chrono::steady_clock::now();
    fx.submit("big", "big.txt");
    ASSERT_EQ(fx.wait_final("big", 240s), "done") << fx.field("big", "error");
    const auto took = std::chrono::steady_clock::now() - t0;
    const long helper_peak_kib = peak.stop();
    EXPECT_EQ(fx.field("big", "extraction_status"), "done") << fx.field("big", "extraction_error");
    EXPECT_EQ(fx.field("big", "extraction_method"), "plain");
    EXPECT_EQ(fx.field("big", "size_bytes"), std::to_string(size));
    EXPECT_EQ(fx.field("big", "content_hash"), input_sha);
    // The whole text in storage, byte for byte (the input is its own clean text).
    EXPECT_EQ(fx.field("big", "extracted_text_bytes"), std::to_string(size));
    ASSERT_EQ(fx.field("big", "extracted_text_key"), "text/big.txt");
    const fs::path spilled = fx.store() / "text" / "big.txt";
    ASSERT_TRUE(fs::exists(spilled));
    EXPECT_EQ(fs::file_size(spilled), size);
    EXPECT_EQ(sha256_of(spilled), input_sha);
    // Inline: the first INGEST_MAX_TEXT_BYTES (1 MiB), cut at a character.
    const std::string inline_text = fx.field("big", "extracted_text");
    EXPECT_LE(inline_text.size(), k_mib);
    EXPECT_GE(inline_text.size(), k_mib - 3);
    EXPECT_EQ(inline_text.substr(0, 200), text_block().substr(0, 200));
    // Memory: the helper far under its budget and under the text's size; the worker small.
    EXPECT_GT(helper_peak_kib, 0);
    EXPECT_LT(helper_peak_kib, 300 * 1024) << "helper peak " << helper_peak_kib << " KiB";
    const long worker_peak_kib = testsupport::status_kib(w.pid(), "VmHWM:");
    EXPECT_LT(worker_peak_kib, 256 * 1024) << "worker peak " << worker_peak_kib << " KiB";
    std::cout << "[ measure ] 600 MiB text: " << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
              << " ms to done; helper VmHWM " << helper_peak_kib / 1024 << " MiB; worker VmHWM "
              << worker_peak_kib / 1024 << " MiB\n";
    EXPECT_TRUE(w.alive());
}

// True when process `pid` has `path` open.
bool has_open(pid_t pid, const fs::path& path) {
    std::error_code ec;
    for (const auto& fd : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec)) {
        std::error_code link_ec;
        if (fs::read_symlink(fd.path(), link_ec) == path) return true;
    }
    return false;
}

// A stored file truncated while the worker has it open (hashing it, or its helper reading
// the text) is a transient fault: the job is read again and the one record committed is that
// of the bytes finally stored, never the size at open with a hash of neither version.
TEST(ParserBounds, AFileTruncatedWhileItIsReadEndsWithTheRecordOfTheBytesFinallyStored) {
    testsupport::WorkerFixture fx;
    const fs::path input = fx.store() / "shrinks.txt";
    const std::uint64_t size = write_text_file(input, 400 * k_mib);
    const std::uint64_t kept = text_block().rfind('\n', 4096) + 1; // a whole line: no character cut
    auto& w = fx.start("tw", {{"INGEST_CONCURRENCY", "1"}, {"INGEST_OCR_MODE", "off"}});
    ASSERT_TRUE(fx.wait_for_log("tw", "consumer group ready", 60s));
    fx.submit("shrinks", "shrinks.txt");
    // The moment the worker or its helper has the file open, it shrinks to its first lines.
    const auto until = std::chrono::steady_clock::now() + 60s;
    bool seen = false;
    while (!seen && std::chrono::steady_clock::now() < until) {
        seen = has_open(w.pid(), input);
        for (pid_t k : testsupport::child_pids(w.pid())) seen = seen || has_open(k, input);
        if (!seen) std::this_thread::sleep_for(1ms); // the poll interval
    }
    ASSERT_TRUE(seen) << "the worker never opened the file";
    ASSERT_EQ(::truncate(input.c_str(), static_cast<off_t>(kept)), 0) << std::strerror(errno);
    ASSERT_EQ(fx.wait_final("shrinks", 120s), "done") << fx.field("shrinks", "error");
    const std::string truncated_sha = sha256_of(input);
    EXPECT_EQ(fx.field("shrinks", "size_bytes"), std::to_string(kept));
    EXPECT_EQ(fx.field("shrinks", "content_hash"), truncated_sha);
    EXPECT_EQ(fx.field("shrinks", "extraction_status"), "done") << fx.field("shrinks", "extraction_error");
    EXPECT_EQ(fx.field("shrinks", "extracted_text"), text_block().substr(0, kept));
    EXPECT_EQ(fx.field("shrinks", "extracted_text_bytes"), std::to_string(kept));
    EXPECT_EQ(fx.field("shrinks", "extracted_text_key"), "");
    // The change was seen and retried, and only one final status was committed.
    EXPECT_NE(fx.log_of("tw").find("changed while it was read"), std::string::npos) << fx.log_of("tw");
    EXPECT_EQ(fx.results_count("final")["shrinks"], 1);
    EXPECT_LT(kept, size);
    EXPECT_TRUE(w.alive());
}

} // namespace

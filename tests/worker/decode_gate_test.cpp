// One large decode at a time per worker (issue 20, memory): a helper about to decode a large
// progressive JPEG (162 MB of coefficients at 24 MP 4:4:4) waits while another helper of the
// same worker holds the gate, and other files go on meanwhile. The test holds the gate itself
// (its own flock on the worker's gate file) and sees the helper wait in /proc/locks.
#include "tests/support/worker_fixture.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;

// The worker's gate file under `tmp` (its TMPDIR), once its helper pool made it; "" until then.
std::filesystem::path gate_file(const std::filesystem::path& tmp) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(tmp, ec)) {
        if (e.path().filename().string().rfind("ingestd-helpers-", 0) == 0 &&
            std::filesystem::exists(e.path() / "decode.lock")) {
            return e.path() / "decode.lock";
        }
    }
    return {};
}

// A process blocked in flock(2) on the file with inode `inode`: a "->" line of /proc/locks.
bool someone_waits_on(ino_t inode) {
    std::ifstream locks("/proc/locks");
    const std::string tail = ":" + std::to_string(inode) + " ";
    for (std::string line; std::getline(locks, line);) {
        if (line.find("->") != std::string::npos && line.find("FLOCK") != std::string::npos &&
            line.find(tail) != std::string::npos) {
            return true;
        }
    }
    return false;
}

void make_jpeg(const std::filesystem::path& out, const std::string& options, int w, int h) {
    const std::string cmd = "vips black '" + out.string() + "[" + options + "]' " + std::to_string(w) + " " +
                            std::to_string(h) + " --bands 3 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

TEST(DecodeGate, ALargeProgressiveJpegWaitsForTheGateWhileOtherFilesGoOn) {
    testsupport::WorkerFixture fx;
    const std::filesystem::path tmp = fx.dir() / "tmp";
    std::filesystem::create_directories(tmp);
    // 4400 x 2800 at 4:4:4: 74 MB of coefficients, above the 64 MiB gate; the small one is baseline.
    make_jpeg(fx.dir() / "large.jpg", "interlace,Q=50,subsample-mode=off", 4400, 2800);
    make_jpeg(fx.dir() / "small.jpg", "Q=50", 640, 480);
    fx.put_copy("large.jpg", fx.dir() / "large.jpg");
    fx.put_copy("small.jpg", fx.dir() / "small.jpg");
    fx.start("w1", {{"TMPDIR", tmp.string()}, {"INGEST_OCR_MODE", "off"}});

    std::filesystem::path gate;
    ASSERT_TRUE(eventually(30s, [&] { return !(gate = gate_file(tmp)).empty(); }));
    const int fd = ::open(gate.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX), 0); // another helper's large decode, as the worker sees it
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);

    fx.submit("large", "large.jpg");
    fx.submit("small", "small.jpg");
    EXPECT_EQ(fx.wait_final("small"), "done");
    EXPECT_EQ(fx.field("small", "thumbnail_status"), "done");
    ASSERT_TRUE(eventually(30s, [&] { return someone_waits_on(st.st_ino); })) << "no helper waits on the gate";
    EXPECT_FALSE(fx.is_final("large")) << "decoded past a held gate";

    ::flock(fd, LOCK_UN);
    ::close(fd);
    EXPECT_EQ(fx.wait_final("large"), "done");
    EXPECT_EQ(fx.field("large", "thumbnail_status"), "done");
    EXPECT_EQ(fx.field("large", "width"), "4400");
}

} // namespace

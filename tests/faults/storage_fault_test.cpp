// Storage faults that heal (issue 18): a real full volume (a small tmpfs mounted over the
// storage root in a private mount namespace) under a real `ingestd worker` and redis-server.
// Files whose outputs cannot be written while the volume is full end `done` once space
// returns, never `failed`; a job whose time budget ends first is handed back at once.
#include "tests/support/generated_file.hpp"
#include "tests/support/worker_fixture.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using testsupport::eventually;

// Writes `text` to a /proc file of this process (uid_map, gid_map, setgroups).
bool write_proc(const char* path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    out.close();
    return static_cast<bool>(out);
}

// A private mount namespace for this process and every process it starts; as a user that is
// not root, inside a user namespace of its own in which it is root.
std::string enter_mount_namespace() {
    const uid_t uid = ::getuid();
    const gid_t gid = ::getgid();
    const int flags = uid == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS;
    if (::unshare(flags) != 0) return std::string("unshare: ") + std::strerror(errno);
    if (uid != 0 && !(write_proc("/proc/self/setgroups", "deny") &&
                      write_proc("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") &&
                      write_proc("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))) {
        return "cannot map this user into the user namespace";
    }
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
        return std::string("mount --make-rprivate /: ") + std::strerror(errno);
    }
    return {};
}

std::string g_namespace_problem;

struct StorageFault : ::testing::Test {
    testsupport::WorkerFixture fx;
    std::filesystem::path filler;

    void SetUp() override {
        ASSERT_EQ(g_namespace_problem, "");
        ASSERT_EQ(::mount("tmpfs", fx.store().c_str(), "tmpfs", 0, "size=4m"), 0) << std::strerror(errno);
        filler = fx.store() / "filler";
    }
    void TearDown() override { ::umount2(fx.store().c_str(), MNT_DETACH); }

    // How often worker `name` has logged `needle` so far.
    std::size_t log_count(const std::string& name, const std::string& needle) const {
        const std::string log = fx.log_of(name);
        std::size_t n = 0;
        for (auto at = log.find(needle); at != std::string::npos; at = log.find(needle, at + 1)) ++n;
        return n;
    }

    // Five distinct images (their thumbnails need room), stored before the volume fills.
    std::vector<std::string> put_images() {
        std::vector<std::string> ids;
        for (int i = 0; i < 5; ++i) {
            const std::string id = "img" + std::to_string(i);
            testsupport::write_image(fx.store() / (id + ".png"), 300 + i, 200 + i);
            ids.push_back(id);
        }
        return ids;
    }
    // Fills the volume up to its last byte.
    void fill() {
        const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        ASSERT_GE(fd, 0);
        const std::string chunk(64 * 1024, '\0');
        for (std::size_t n = chunk.size(); n > 0;) {
            const ssize_t w = ::write(fd, chunk.data(), n);
            if (w < 0 && errno == ENOSPC)
                n /= 2;
            else
                ASSERT_GT(w, 0) << std::strerror(errno);
        }
        ::close(fd);
    }
    void free_space() { std::filesystem::remove(filler); }
};

// The volume full for a few seconds: the outputs are retried (the event stays pending) and
// every file ends done, on its first delivery, once space returns.
TEST_F(StorageFault, FullVolumeHealsWithoutFailingAFile) {
    const auto ids = put_images();
    ASSERT_NO_FATAL_FAILURE(fill());
    fx.start("w1");
    for (const auto& id : ids) fx.submit(id, id + ".png");
    // More retries than the few a job used to get before failing its file.
    ASSERT_TRUE(eventually(60s, [&] { return log_count("w1", "storage error, retrying") >= 10; })) << fx.log_of("w1");
    for (const auto& id : ids) EXPECT_FALSE(fx.is_final(id)) << id << " ended while the volume was full";
    free_space();
    for (const auto& id : ids) {
        EXPECT_EQ(fx.wait_final(id, 60s), "done") << id << ": " << fx.field(id, "error");
        EXPECT_EQ(fx.field(id, "thumbnail_status"), "done") << id;
        EXPECT_EQ(fx.field(id, "attempts"), "1") << id;
    }
}

// The job's budget (INGEST_JOB_TIMEOUT_S) ends while the volume is still full: the entry is
// handed back (pending, idle past any claim timeout) rather than failed, and the next worker
// takes it at once although the claim timeout is a minute.
TEST_F(StorageFault, BudgetSpentHandsTheEntryBack) {
    testsupport::write_image(fx.store() / "one.png", 320, 240);
    ASSERT_NO_FATAL_FAILURE(fill());
    fx.start("w1", {{"INGEST_JOB_TIMEOUT_S", "2"}, {"INGEST_CLAIM_IDLE_MS", "60000"}});
    fx.submit("one", "one.png");
    ASSERT_TRUE(fx.wait_for_log("w1", "event handed back", 30s)) << fx.log_of("w1");
    EXPECT_FALSE(fx.is_final("one"));
    const jobs::Reply p = fx.redis().command({"XPENDING", "ingest:uploads", "ingestd", "-", "+", "10"});
    ASSERT_EQ(p.elements.size(), 1u);
    EXPECT_GT(p.elements[0].elements[2].integer, 3600LL * 1000) << "the entry is not claimable at once";
    fx.kill("w1");
    free_space();
    const auto t0 = std::chrono::steady_clock::now();
    fx.start("w2", {{"INGEST_CLAIM_IDLE_MS", "60000"}});
    EXPECT_EQ(fx.wait_final("one", 30s), "done") << fx.field("one", "error");
    EXPECT_EQ(fx.field("one", "worker"), "w2");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
}

} // namespace

int main(int argc, char** argv) {
    // Before any thread starts: a user namespace needs a single-threaded process.
    g_namespace_problem = enter_mount_namespace();
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

// The download spool's writer and hasher (worker/storage/spool_hasher.*): what it writes and
// the SHA-256 it returns match the bytes, inline for small objects and on its own thread for
// large ones, across buffer boundaries, after a restart, and a failing spool is reported.
#include "core/file_error.hpp"
#include "extractors/sniff/hash.hpp"
#include "worker/storage/spool.hpp"
#include "worker/storage/spool_hasher.hpp"

#include <random>
#include <string>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

using worker::SpoolHasher;

namespace {

std::string random_bytes(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(gen() & 0xff);
    return s;
}

// Feeds `bytes` in pieces of odd sizes, as a download would.
bool feed(SpoolHasher& h, const std::string& bytes) {
    const std::size_t sizes[] = {1, 16383, 524288, 3 * 1024 * 1024 + 7, 65536};
    std::size_t at = 0;
    for (std::size_t i = 0; at < bytes.size(); ++i) {
        const std::size_t take = std::min(sizes[i % 5], bytes.size() - at);
        if (!h.add(bytes.data() + at, take)) return false;
        at += take;
    }
    return true;
}

std::string contents(int fd) {
    struct stat st {};
    EXPECT_EQ(::fstat(fd, &st), 0);
    std::string s(static_cast<std::size_t>(st.st_size), '\0');
    EXPECT_EQ(::pread(fd, s.data(), s.size(), 0), static_cast<ssize_t>(s.size()));
    return s;
}

std::string sha256_of_spool(int fd) {
    return extractors::sha256_fd(fd).sha256_hex;
}

void check_round_trip(std::size_t size, bool overlapped) {
    const std::string bytes = random_bytes(size, static_cast<unsigned>(size));
    core::Fd fd = worker::open_spool();
    std::string hex;
    {
        SpoolHasher h(fd.get(), size);
        EXPECT_EQ(h.overlapped(), overlapped);
        ASSERT_TRUE(feed(h, bytes));
        hex = h.finish();
    }
    EXPECT_TRUE(contents(fd.get()) == bytes);
    EXPECT_EQ(hex, sha256_of_spool(fd.get()));
    EXPECT_EQ(hex.size(), 64u);
}

} // namespace

TEST(SpoolHasherTest, SmallObjectsAreWrittenAndHashedInline) {
    check_round_trip(100000, false);
}

TEST(SpoolHasherTest, LargeObjectsAreWrittenAndHashedOnTheirOwnThread) {
    // Several times the buffers in flight, ending inside a buffer.
    check_round_trip(SpoolHasher::k_chunk * (SpoolHasher::k_buffers * 2 + 1) + 12345, true);
}

TEST(SpoolHasherTest, EmptyObjectHasTheEmptyHash) {
    core::Fd fd = worker::open_spool();
    SpoolHasher h(fd.get(), 0);
    EXPECT_EQ(h.finish(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SpoolHasherTest, ARestartDropsTheBytesBeforeIt) {
    for (std::uint64_t size : {std::uint64_t{300000}, std::uint64_t{SpoolHasher::k_chunk * 3 + 99}}) {
        const std::string first = random_bytes(static_cast<std::size_t>(size), 1);
        const std::string second = random_bytes(static_cast<std::size_t>(size), 2);
        core::Fd fd = worker::open_spool();
        SpoolHasher h(fd.get(), size);
        ASSERT_TRUE(feed(h, first.substr(0, first.size() / 2 + 3)));
        h.restart();
        ASSERT_TRUE(feed(h, second));
        const std::string hex = h.finish();
        EXPECT_TRUE(contents(fd.get()) == second) << size;
        EXPECT_EQ(hex, sha256_of_spool(fd.get())) << size;
    }
}

TEST(SpoolHasherTest, ASpoolThatCannotBeWrittenIsATransientStorageError) {
    for (std::uint64_t size : {std::uint64_t{1000}, std::uint64_t{SpoolHasher::k_chunk * 6}}) {
        core::Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC)); // pwrite fails: not open for writing
        ASSERT_GE(fd.get(), 0);
        SpoolHasher h(fd.get(), size);
        feed(h, random_bytes(static_cast<std::size_t>(size), 3)); // may or may not see it yet
        try {
            h.finish();
            FAIL() << "no error for an unwritable spool, size " << size;
        } catch (const core::FileError& e) {
            EXPECT_EQ(e.code(), core::ErrorCode::storage_error);
            EXPECT_TRUE(e.transient());
            EXPECT_NE(std::string(e.what()).find("cannot write the download spool"), std::string::npos) << e.what();
        }
    }
}

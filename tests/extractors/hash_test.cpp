#include "extractors/sniff/hash.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"

#include <cstring>
#include <random>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using testsupport::TempDir;

std::string hash_file(const std::filesystem::path& p) {
    int fd = ::open(p.c_str(), O_RDONLY);
    EXPECT_GE(fd, 0);
    auto h = extractors::sha256_fd(fd);
    ::close(fd);
    return h.sha256_hex;
}

TEST(Sha256, KnownVectors) {
    EXPECT_EQ(extractors::sha256_hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(extractors::sha256_hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    std::string m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    EXPECT_EQ(extractors::sha256_hex(m.data(), m.size()),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, EmptyFileAndMillionA) {
    TempDir dir;
    testsupport::write_file(dir.path() / "empty", "");
    EXPECT_EQ(hash_file(dir.path() / "empty"), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    testsupport::write_file(dir.path() / "a", std::string(1000000, 'a'));
    EXPECT_EQ(hash_file(dir.path() / "a"), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, LargeGeneratedFileMatchesSha256sum) {
    TempDir dir;
    auto path = dir.path() / "big.bin";
    {
        std::mt19937_64 rng(42);
        std::string chunk(1 << 20, '\0');
        int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ASSERT_GE(fd, 0);
        // 64 MiB plus an odd tail, so reads cross buffer boundaries unevenly.
        for (int i = 0; i < 64; ++i) {
            for (std::size_t k = 0; k < chunk.size(); k += 8) {
                auto v = rng();
                std::memcpy(chunk.data() + k, &v, 8);
            }
            ASSERT_EQ(::write(fd, chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
        }
        ASSERT_EQ(::write(fd, "tail!", 5), 5);
        ::close(fd);
    }
    int fd = ::open(path.c_str(), O_RDONLY);
    auto h = extractors::sha256_fd(fd);
    ::close(fd);
    EXPECT_EQ(h.bytes, 64ULL * (1 << 20) + 5);
    std::string ref = testsupport::run_command("sha256sum " + path.string());
    EXPECT_EQ(h.sha256_hex, ref.substr(0, 64));
}

TEST(Sha256, ReadErrorOnBadDescriptor) {
    EXPECT_THROW(extractors::sha256_fd(-1), extractors::ReadError);
}

} // namespace

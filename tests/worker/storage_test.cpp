#include "tests/support/corpus.hpp"
#include "worker/storage/filesystem_store.hpp"

#include <map>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using testsupport::TempDir;
using testsupport::write_file;
using Storage = worker::FilesystemStore;

std::string code_of(const worker::Store& s, const std::string& key, std::uint64_t max = 1 << 30) {
    try {
        s.open_input(key, max);
    } catch (const core::FileError& e) {
        return std::string(core::to_string(e.code()));
    }
    return "ok";
}

// Each key's open ends with its code ("ok" when it opens).
void expect_codes(const worker::Store& s, const std::map<std::string, std::string>& want) {
    for (const auto& [key, code] : want) EXPECT_EQ(code_of(s, key), code) << key;
}

struct StorageFixture : ::testing::Test {
    TempDir outside;
    TempDir dir;
    std::filesystem::path root = dir.path() / "root";
    void SetUp() override {
        std::filesystem::create_directories(root / "real");
        write_file(root / "real/in.blob", "inside\n");
        write_file(outside.path() / "secret", "secret\n");
    }
};

TEST_F(StorageFixture, OpensRegularFilesInside) {
    Storage s(root);
    auto in = s.open_input("real/in.blob", 100);
    EXPECT_EQ(in.size, 7u);
    char buf[8] = {};
    EXPECT_EQ(::pread(in.fd.get(), buf, 7, 0), 7);
    EXPECT_STREQ(buf, "inside\n");
}

TEST_F(StorageFixture, MissingAndFolders) {
    Storage s(root);
    expect_codes(s, {{"nothere.blob", "storage_missing"},
                     {"nodir/x.blob", "storage_missing"},
                     {"real/in.blob/x", "storage_missing"},
                     {"real", "not_regular_file"}});
}

TEST_F(StorageFixture, SymlinksAnywhereAreRefused) {
    Storage s(root);
    std::filesystem::create_symlink(outside.path() / "secret", root / "out.blob");
    std::filesystem::create_symlink(root / "real/in.blob", root / "in-link.blob");
    std::filesystem::create_directory_symlink(root / "real", root / "dirlink");
    std::filesystem::create_directory_symlink(outside.path(), root / "outdir");
    for (const char* key : {"out.blob", "in-link.blob", "dirlink/in.blob", "outdir/secret"}) {
        EXPECT_EQ(code_of(s, key), "not_regular_file") << key;
    }
}

TEST_F(StorageFixture, KernelRefusesEscapesEvenWithoutStringChecks) {
    Storage s(root);
    EXPECT_NE(code_of(s, "../" + outside.path().filename().string() + "/secret"), "ok");
    EXPECT_NE(code_of(s, (outside.path() / "secret").string()), "ok");
}

TEST_F(StorageFixture, FifoIsNotARegularFileAndDoesNotBlock) {
    Storage s(root);
    ASSERT_EQ(::mkfifo((root / "fifo.blob").c_str(), 0644), 0);
    EXPECT_EQ(code_of(s, "fifo.blob"), "not_regular_file");
}

TEST_F(StorageFixture, SizeLimitBeforeReading) {
    Storage s(root);
    int fd = ::open((root / "sparse.blob").c_str(), O_WRONLY | O_CREAT, 0644);
    ASSERT_EQ(::ftruncate(fd, 2LL << 30), 0);
    ::close(fd);
    EXPECT_EQ(code_of(s, "sparse.blob", 1 << 20), "too_large");
}

TEST_F(StorageFixture, AtomicWritesMakeFoldersAndReplace) {
    Storage s(root);
    s.write("thumbnails/f1/72.webp", "one");
    s.write("thumbnails/f1/72.webp", "two");
    EXPECT_EQ(testsupport::read_file(root / "thumbnails/f1/72.webp"), "two");
    int entries = 0;
    for (auto& e : std::filesystem::directory_iterator(root / "thumbnails/f1")) {
        (void)e;
        ++entries;
    }
    EXPECT_EQ(entries, 1) << "no temporary file left behind";
    EXPECT_EQ(s.read_all("thumbnails/f1/72.webp", 100), "two");
}

TEST_F(StorageFixture, WritesNeverFollowSymlinkedFolders) {
    Storage s(root);
    std::filesystem::create_directory_symlink(outside.path(), root / "text");
    EXPECT_THROW(s.write("text/f1.txt", "x"), core::FileError);
    EXPECT_FALSE(std::filesystem::exists(outside.path() / "f1.txt"));
}

TEST_F(StorageFixture, ImportCopiesStreaming) {
    Storage s(root);
    std::string big(3 << 20, 'x');
    write_file(dir.path() / "src", big);
    int fd = ::open((dir.path() / "src").c_str(), O_RDONLY);
    s.write_from("uploads/ab/f", fd);
    ::close(fd);
    EXPECT_EQ(std::filesystem::file_size(root / "uploads/ab/f"), big.size());
}

TEST_F(StorageFixture, CopyRemoveAndListGoThroughTheStoreInterface) {
    Storage fs(root);
    const worker::Store& s = fs;
    s.write("thumbnails/f1/72.webp", "small");
    s.copy("thumbnails/f1/72.webp", "thumbnails/f2/72.webp");
    EXPECT_EQ(s.read_all("thumbnails/f2/72.webp", 100), "small");
    EXPECT_EQ(code_of(s, "thumbnails/f3/72.webp"), "storage_missing");

    std::vector<std::string> keys;
    s.list("thumbnails/", [&](const std::string& k) { keys.push_back(k); });
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(keys, (std::vector<std::string>{"thumbnails/f1/72.webp", "thumbnails/f2/72.webp"}));
    keys.clear();
    s.list("nothing/", [&](const std::string& k) { keys.push_back(k); });
    EXPECT_TRUE(keys.empty());

    s.remove("thumbnails/f1/72.webp");
    s.remove("thumbnails/f1/72.webp"); // gone already: not an error
    s.remove("never/was/here.txt");
    EXPECT_EQ(code_of(s, "thumbnails/f1/72.webp"), "storage_missing");
    EXPECT_EQ(s.describe("a/b"), (root / "a/b").string());
}

TEST_F(StorageFixture, ListNeverFollowsSymlinks) {
    Storage s(root);
    std::filesystem::create_directory_symlink(outside.path(), root / "real/link");
    std::vector<std::string> keys;
    s.list("", [&](const std::string& k) { keys.push_back(k); });
    EXPECT_EQ(keys, (std::vector<std::string>{"real/in.blob"}));
}

} // namespace

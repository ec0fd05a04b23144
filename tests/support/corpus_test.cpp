// The corpus contract of tests/support/corpus.hpp: a test whose corpus file is missing skips
// with its reason outside CI and fails under CI=true. Shown by running this binary again on a
// probe test that exists only when INGESTD_CORPUS_PROBE is set (so CTest never sees it), with
// INGEST_SHARED_DIR pointing at an empty folder.
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

namespace {

struct CorpusProbe : ::testing::Test {
    void TestBody() override {
        INGEST_CORPUS_FILE(file, "no/such/file.pdf");
        ADD_FAILURE() << "the probe went on past a missing corpus file: " << file;
    }
};

const bool k_probe_registered = [] {
    if (std::getenv("INGESTD_CORPUS_PROBE") == nullptr) return false;
    ::testing::RegisterTest("CorpusProbe", "MissingFile", nullptr, nullptr, __FILE__, __LINE__,
                            []() -> ::testing::Test* { return new CorpusProbe; });
    return true;
}();

// The probe's outcome with `ci_env` ("env -u CI" or "CI=true") and an empty shared folder.
struct Probe {
    int status = -1;
    std::string out;
    bool says(const std::string& text) const { return out.find(text) != std::string::npos; }
};

Probe run_probe(const std::string& ci_env) {
    testsupport::TempDir empty;
    const auto self = std::filesystem::read_symlink("/proc/self/exe");
    Probe p;
    p.out = testsupport::run_command("env " + ci_env + " INGESTD_CORPUS_PROBE=1 INGEST_SHARED_DIR='" +
                                         empty.path().string() + "' '" + self.string() +
                                         "' --gtest_filter=CorpusProbe.MissingFile 2>&1",
                                     &p.status);
    return p;
}

TEST(Corpus, MissingFileSkipsWithItsReasonOutsideCi) {
    const Probe p = run_probe("-u CI");
    EXPECT_EQ(p.status, 0) << p.out;
    EXPECT_TRUE(p.says("[  SKIPPED ] CorpusProbe.MissingFile") && p.says("corpus file no/such/file.pdf not found"))
        << p.out;
    EXPECT_FALSE(p.says("went on past")) << p.out;
}

TEST(Corpus, MissingFileFailsUnderCi) {
    const Probe p = run_probe("CI=true");
    EXPECT_NE(p.status, 0) << p.out;
    EXPECT_TRUE(p.says("[  FAILED  ] CorpusProbe.MissingFile") && p.says("missing under ../shared (CI=true)")) << p.out;
}

TEST(Corpus, FilesAreFoundUnderTheSharedFolder) {
    testsupport::TempDir shared;
    testsupport::write_file(shared.path() / "corpus" / "a" / "b.txt", "x");
    ::setenv("INGEST_SHARED_DIR", shared.path().c_str(), 1);
    EXPECT_EQ(testsupport::corpus_file("a/b.txt"), shared.path() / "corpus" / "a" / "b.txt");
    EXPECT_TRUE(testsupport::corpus_file("a/missing.txt").empty());
    ::unsetenv("INGEST_SHARED_DIR");
}

} // namespace

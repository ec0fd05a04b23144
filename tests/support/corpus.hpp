#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace testsupport {

/// The `../shared` folder beside the project root (where CI puts it), or empty.
std::filesystem::path shared_dir();

/// Path of a corpus file (`"pdf/text/tracemonkey.pdf"`), or empty when the corpus is absent.
std::filesystem::path corpus_file(const std::string& relative);

/// True under CI (`CI=true`), where a missing corpus is a failure rather than a skip.
bool in_ci();

/// Reads a whole file; throws std::runtime_error when it cannot.
std::string read_file(const std::filesystem::path& path);

/// Writes a whole file.
void write_file(const std::filesystem::path& path, const std::string& bytes);

/// An RAII temporary folder, removed with everything in it.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

} // namespace testsupport

/// In a TEST body: binds `var` to a corpus file, or skips with a visible message
/// (fails when CI=true) when the corpus is absent.
#define INGEST_CORPUS_FILE(var, relative)                                                                              \
    const std::filesystem::path var = ::testsupport::corpus_file(relative);                                            \
    if (var.empty()) {                                                                                                 \
        if (::testsupport::in_ci()) {                                                                                  \
            FAIL() << "corpus file " << (relative) << " missing under ../shared (CI=true)";                            \
        }                                                                                                              \
        GTEST_SKIP() << "corpus file " << (relative) << " not found: ../shared/corpus absent";                         \
    }

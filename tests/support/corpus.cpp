#include "tests/support/corpus.hpp"

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace testsupport {

std::filesystem::path shared_dir() {
    if (const char* env = std::getenv("INGEST_SHARED_DIR"); env != nullptr && *env != '\0') {
        return env;
    }
    std::filesystem::path p = std::filesystem::path(INGESTD_SOURCE_DIR) / ".." / "shared";
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
        return std::filesystem::weakly_canonical(p, ec);
    }
    return {};
}

std::filesystem::path corpus_file(const std::string& relative) {
    const auto shared = shared_dir();
    if (shared.empty()) {
        return {};
    }
    auto p = shared / "corpus" / relative;
    std::error_code ec;
    return std::filesystem::is_regular_file(p, ec) ? p : std::filesystem::path{};
}

bool in_ci() {
    const char* ci = std::getenv("CI");
    return ci != nullptr && std::string(ci) == "true";
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path.string());
    }
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
        throw std::runtime_error("cannot write " + path.string());
    }
}

TempDir::TempDir() {
    std::random_device rd;
    auto base = std::filesystem::temp_directory_path();
    for (int i = 0; i < 100; ++i) {
        auto candidate = base / ("ingestd-test-" + std::to_string(rd()));
        if (std::filesystem::create_directory(candidate)) {
            m_path = candidate;
            return;
        }
    }
    throw std::runtime_error("cannot create a temporary folder");
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

} // namespace testsupport

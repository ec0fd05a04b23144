// Where Tesseract's language data is and what version it has: what the worker process
// needs at start-up and for pipeline_version, without loading Tesseract itself (only
// ingestd-helper links it).
#include "extractors/sniff/ocr_langs.hpp"

#include "extractors/sniff/hash.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <tesseract/version.h>
#include <unistd.h>

namespace extractors {

namespace {

constexpr const char* k_default_tessdata = "/usr/share/tesseract-ocr/5/tessdata";

std::vector<std::string> split_langs(const std::string& langs) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t plus = langs.find('+', start);
        std::string lang = langs.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        const bool ok = !lang.empty() && lang.front() != '/' && std::all_of(lang.begin(), lang.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                   c == '/';
        });
        if (!ok) {
            throw std::runtime_error("OCR language list '" + langs +
                                     "' is malformed (expected names like eng or eng+deu)");
        }
        out.push_back(std::move(lang));
        if (plus == std::string::npos) {
            return out;
        }
        start = plus + 1;
    }
}

} // namespace

std::filesystem::path traineddata_path(const std::string& lang) {
    return tessdata_dir() / (lang + ".traineddata");
}

std::filesystem::path tessdata_dir() {
    if (const char* env = std::getenv("TESSDATA_PREFIX"); env != nullptr && *env != '\0') {
        return env;
    }
    return k_default_tessdata;
}

std::string missing_ocr_language(const std::string& langs) {
    for (const std::string& lang : split_langs(langs)) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(traineddata_path(lang), ec)) return lang;
    }
    return {};
}

void check_ocr_languages(const std::string& langs) {
    if (const std::string lang = missing_ocr_language(langs); !lang.empty()) {
        throw std::runtime_error("OCR language data missing for '" + lang + "' (looked in " + tessdata_dir().string() +
                                 ")");
    }
}

std::string ocr_version(const std::string& langs) {
    static std::mutex mutex;
    static std::map<std::string, std::string> digests; // path -> short digest
    std::string out = std::string("tesseract ") + TESSERACT_VERSION_STR;
    for (const std::string& lang : split_langs(langs)) {
        const std::filesystem::path path = traineddata_path(lang);
        std::lock_guard lock(mutex);
        auto it = digests.find(path.string());
        if (it == digests.end()) {
            const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                throw std::runtime_error("OCR language data missing for '" + lang + "' (looked in " +
                                         tessdata_dir().string() + ")");
            }
            std::string hex;
            try {
                hex = sha256_fd(fd).sha256_hex;
            } catch (...) {
                ::close(fd);
                throw;
            }
            ::close(fd);
            it = digests.emplace(path.string(), hex.substr(0, 12)).first;
        }
        out += ' ';
        out += lang;
        out += ':';
        out += it->second;
    }
    return out;
}

} // namespace extractors

#include "extractors/vips_error.hpp"

#include <vips/vips.h>

namespace extractors {

namespace {

// Bound on the library text kept for the log line.
constexpr std::size_t k_max_line = 300;

} // namespace

std::string vips_error_line(const std::exception& error) {
    const std::string text = error.what();
    vips_error_clear();
    std::string line;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string part = text.substr(start, end - start);
        if (!part.empty() && line.find(part) == std::string::npos) {
            if (!line.empty()) line += "; ";
            line += part;
        }
        start = end + 1;
    }
    if (line.size() > k_max_line) line.resize(k_max_line);
    for (char& c : line) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
    while (!line.empty() && (line.back() == '.' || line.back() == ' ')) line.pop_back();
    return line.empty() ? "unknown libvips error" : line;
}

} // namespace extractors

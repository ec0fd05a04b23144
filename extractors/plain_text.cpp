#include "extractors/plain_text.hpp"

#include "extractors/text_clean.hpp"
#include "extractors/text_sink.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace extractors {
namespace {

constexpr std::size_t k_chunk = 1 << 20;

// Reads up to `size` bytes at `offset`; the count read (0 at the end), or -1 with errno.
ssize_t read_at(int fd, char* data, std::size_t size, std::uint64_t offset) {
    for (;;) {
        const ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
        if (n >= 0 || errno != EINTR) return n;
    }
}

} // namespace

TextResult extract_plain_text(std::span<const unsigned char> bytes) {
    TextResult result;
    result.method = "plain";
    result.text = decode_text(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    return result;
}

TextResult extract_plain_text_file(int fd, std::uint64_t size, const TextOptions& options) {
    TextResult result;
    result.method = "plain";
    TextSink sink(options.max_text_bytes);
    TextDecoder decoder;
    std::vector<char> chunk(k_chunk);
    std::string out;
    for (std::uint64_t at = 0; at < size;) {
        if (std::chrono::steady_clock::now() >= options.deadline) {
            result.error = StepError{core::ErrorCode::timeout,
                                     "The job ran out of its time budget while the text was read; the text read "
                                     "so far is kept."};
            break;
        }
        const ssize_t n = read_at(fd, chunk.data(), std::min<std::uint64_t>(k_chunk, size - at), at);
        if (n <= 0) {
            result.error = StepError{core::ErrorCode::corrupt_file,
                                     "The text file could not be read to its end" +
                                         std::string(n < 0 ? ": " + std::string(std::strerror(errno)) : "") + "."};
            break;
        }
        at += static_cast<std::uint64_t>(n);
        out.clear();
        decoder.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)), out);
        sink.append(out);
    }
    out.clear();
    decoder.finish(out);
    sink.append(out);
    std::move(sink).finish_into(result);
    return result;
}

} // namespace extractors

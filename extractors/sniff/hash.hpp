#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace extractors {

/// A read from the input failed (EIO and the like): transient, a retry may succeed.
class ReadError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct HashResult {
    std::string sha256_hex; // lowercase
    std::uint64_t bytes = 0;
};

/// Streams the file behind `fd` from offset 0 through OpenSSL SHA-256 with large reads
/// (pread, so the descriptor's offset is untouched); never holds the file in memory.
/// Throws ReadError on an I/O error. Thread-safe.
HashResult sha256_fd(int fd);

/// SHA-256 of a buffer, lowercase hex.
std::string sha256_hex(const void* data, std::size_t size);

} // namespace extractors

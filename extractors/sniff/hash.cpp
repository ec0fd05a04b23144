#include "extractors/sniff/hash.hpp"

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

namespace extractors {
namespace {

struct MdCtxDeleter {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

// 1 MiB reads: large enough that syscalls vanish from the profile, small enough to stay
// in L2/L3 while the digest runs over it.
constexpr std::size_t k_read_size = 1 << 20;

std::string to_hex(const unsigned char* digest, unsigned int len) {
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string hex(len * 2, '0');
    for (unsigned int i = 0; i < len; ++i) {
        hex[2 * i] = k_digits[digest[i] >> 4];
        hex[2 * i + 1] = k_digits[digest[i] & 0xF];
    }
    return hex;
}

MdCtx new_sha256() {
    MdCtx ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 initialisation failed");
    }
    return ctx;
}

std::string finish(EVP_MD_CTX* ctx) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx, digest, &len) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 finalisation failed");
    }
    return to_hex(digest, len);
}

} // namespace

HashResult sha256_fd(int fd) {
    auto ctx = new_sha256();
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    std::unique_ptr<unsigned char[]> buf(new unsigned char[k_read_size]);
    std::uint64_t offset = 0;
    for (;;) {
        ssize_t n = ::pread(fd, buf.get(), k_read_size, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            throw ReadError(std::string("read failed: ") + std::strerror(errno));
        }
        if (n == 0) break;
        if (EVP_DigestUpdate(ctx.get(), buf.get(), static_cast<std::size_t>(n)) != 1) {
            throw std::runtime_error("OpenSSL SHA-256 update failed");
        }
        offset += static_cast<std::uint64_t>(n);
    }
    return HashResult{finish(ctx.get()), offset};
}

std::string sha256_hex(const void* data, std::size_t size) {
    auto ctx = new_sha256();
    if (EVP_DigestUpdate(ctx.get(), data, size) != 1) {
        throw std::runtime_error("OpenSSL SHA-256 update failed");
    }
    return finish(ctx.get());
}

} // namespace extractors

#include "extractors/content_type.hpp"

#include <memory>
#include <stdexcept>

#include <magic.h>
#include <unistd.h>

namespace extractors {
namespace {

struct MagicDeleter {
    void operator()(magic_t cookie) const { magic_close(cookie); }
};
using Magic = std::unique_ptr<std::remove_pointer_t<magic_t>, MagicDeleter>;

magic_t thread_cookie() {
    thread_local Magic cookie = [] {
        Magic m(magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR));
        if (!m || magic_load(m.get(), nullptr) != 0) {
            throw std::runtime_error("libmagic: cannot load the magic database");
        }
        return m;
    }();
    return cookie.get();
}

std::string or_default(const char* mime) {
    return mime != nullptr && *mime != '\0' ? std::string(mime) : "application/octet-stream";
}

} // namespace

std::string detect_content_type(int fd) {
    // libmagic reads from the descriptor's current offset; the duplicate shares that
    // offset, so rewind it (everything else here reads with pread).
    int dup_fd = ::dup(fd);
    if (dup_fd < 0) {
        return "application/octet-stream";
    }
    ::lseek(dup_fd, 0, SEEK_SET);
    std::string mime = or_default(magic_descriptor(thread_cookie(), dup_fd));
    ::close(dup_fd);
    return mime;
}

std::string detect_content_type_buffer(const void* data, std::size_t size) {
    return or_default(magic_buffer(thread_cookie(), data, size));
}

Kind kind_of(const std::string& mime) {
    if (mime == "application/pdf") return Kind::pdf;
    if (mime.rfind("image/", 0) == 0) return Kind::image;
    if (mime.rfind("text/", 0) == 0 || mime == "application/json" ||
        mime == "application/xml" || mime == "application/x-ndjson" ||
        mime == "application/javascript" || mime == "application/csv") {
        return Kind::text;
    }
    return Kind::other;
}

} // namespace extractors

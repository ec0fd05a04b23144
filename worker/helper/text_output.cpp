#include "worker/helper/text_output.hpp"

#include "worker/storage/spool.hpp"

#include <cerrno>
#include <cstring>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace worker {
namespace {

constexpr std::size_t k_chunk = 1 << 20;

// The length of `s` without a UTF-8 sequence that its end cuts short (one whose lead byte
// asks for more bytes than follow it); such a tail waits for the next chunk.
std::size_t complete_prefix(std::string_view s) {
    for (std::size_t back = 1; back <= 3 && back <= s.size(); ++back) {
        const auto c = static_cast<unsigned char>(s[s.size() - back]);
        if ((c & 0xC0) == 0x80) continue; // a continuation byte: look further back
        const std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        return len > back ? s.size() - back : s.size();
    }
    return s.size();
}

// Copies `size` bytes of the helper's file `from` into `to`, checking that they are UTF-8.
std::string copy_checked(int from, std::uint64_t size, int to) {
    std::vector<char> buf(k_chunk + 4);
    std::size_t carried = 0; // bytes at the front of buf: a sequence the last chunk cut short
    for (std::uint64_t at = 0; at < size;) {
        const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(k_chunk, size - at));
        const ssize_t n = ::pread(from, buf.data() + carried, want, static_cast<off_t>(at));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return "a text file shorter than it said";
        spool_write(to, buf.data() + carried, static_cast<std::size_t>(n), at);
        at += static_cast<std::uint64_t>(n);
        const std::string_view have(buf.data(), carried + static_cast<std::size_t>(n));
        const std::size_t whole = at < size ? complete_prefix(have) : have.size();
        if (!valid_utf8(have.substr(0, whole))) return "a text output that is not UTF-8";
        carried = have.size() - whole;
        std::memmove(buf.data(), buf.data() + whole, carried);
    }
    return {};
}

} // namespace

bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        unsigned char c = *p;
        int len;
        std::uint32_t cp;
        if (c < 0x80) {
            ++p;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (end - p < len) return false;
        for (int i = 1; i < len; ++i) {
            if ((p[i] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        p += len;
    }
    return true;
}

std::string adopt_output_files(PipelineResult& result) {
    for (auto& o : result.outputs) {
        if (!o.file) continue;
        struct stat st {};
        if (!*o.file || ::fstat(o.file->get(), &st) != 0 || !S_ISREG(st.st_mode)) {
            return "a text output that is not a regular file";
        }
        if (static_cast<std::uint64_t>(st.st_size) != o.file_size) return "a text file of another size than it said";
        auto own = std::make_shared<core::Fd>(open_spool());
        if (auto problem = copy_checked(o.file->get(), o.file_size, own->get()); !problem.empty()) return problem;
        o.file = std::move(own);
    }
    return {};
}

} // namespace worker

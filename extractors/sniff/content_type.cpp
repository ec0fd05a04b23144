#include "extractors/sniff/content_type.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>
#include <string_view>

#include <magic.h>
#include <unistd.h>

namespace extractors {
namespace {

struct MagicDeleter {
    void operator()(magic_t cookie) const { magic_close(cookie); }
};
using Magic = std::unique_ptr<std::remove_pointer_t<magic_t>, MagicDeleter>;

Magic open_cookie(int flags) {
    Magic m(magic_open(MAGIC_MIME_TYPE | MAGIC_ERROR | flags));
    if (!m || magic_load(m.get(), nullptr) != 0) {
        throw std::runtime_error("libmagic: cannot load the magic database");
    }
    return m;
}

magic_t thread_cookie() {
    thread_local Magic cookie = open_cookie(0);
    return cookie.get();
}

// libmagic without its soft-magic database (the ~15,000 rules of /usr/share/misc/magic),
// keeping its tar, JSON, CSV and text-encoding checks.
magic_t thread_prose_cookie() {
    thread_local Magic cookie = open_cookie(MAGIC_NO_CHECK_SOFT);
    return cookie.get();
}

// For plain text, libmagic runs every soft-magic rule before it gives up and calls it
// text/plain: 0.3 ms on an idle core, about 1 ms on a busy one, most of a small text
// file's cost. A file that starts like prose (a letter or digit first, only text bytes,
// no markup '<', and a first line without ':' or '=', which header-, vCard- and
// config-like formats start with) cannot be any of the formats we parse, so libmagic's
// encoding and structure checks decide it alone. Such a file is text/plain where `file`
// might have named a text subtype from its first words (text/x-diff for "diff --git"),
// except WebVTT, which is too common among uploads to lose its type.
bool starts_like_prose(const unsigned char* p, std::size_t n) {
    if (n == 0 || !(std::isalnum(p[0]) != 0)) return false;
    // WebVTT subtitles start with a word and no ':' but have their own type (text/vtt).
    if (std::string_view(reinterpret_cast<const char*>(p), n).starts_with("WEBVTT")) return false;
    bool first_line = true;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char c = p[i];
        if (c == '\n') first_line = false;
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return false;
        if (c == 0x7f || c == '<') return false;
        if (first_line && (c == ':' || c == '=')) return false;
    }
    return true;
}

// Office documents, e-books, RTF and e-mail (SPEC "Types"). A zip may be a document whose
// parts libmagic did not recognise; the helper looks inside (extractors/document_type.*).
// Password-protected OOXML is an OLE container libmagic calls application/encrypted.
bool is_document_type(std::string_view mime) {
    static constexpr std::string_view k_exact[] = {
        "application/zip", "application/epub+zip", "application/encrypted",     "message/rfc822",    "application/mbox",
        "text/rtf",        "application/rtf",      "application/x-ole-storage", "application/CDFV2",
    };
    static constexpr std::string_view k_prefixes[] = {
        "application/vnd.openxmlformats-officedocument.",          "application/vnd.oasis.opendocument.",
        "application/vnd.ms-word.document.macroenabled",           "application/vnd.ms-excel.sheet.macroenabled",
        "application/vnd.ms-powerpoint.presentation.macroenabled",
    };
    if (std::find(std::begin(k_exact), std::end(k_exact), mime) != std::end(k_exact)) return true;
    std::string lower(mime);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    return std::any_of(std::begin(k_prefixes), std::end(k_prefixes),
                       [&](std::string_view p) { return std::string_view(lower).starts_with(p); });
}

std::string or_default(const char* mime) {
    return mime != nullptr && *mime != '\0' ? std::string(mime) : "application/octet-stream";
}

// SPEC "Types": a PDF is a file with a `%PDF-` header anywhere in its first 1024 bytes, as
// readers accept (an invoice with a few stray bytes first, an AppleSingle wrapper), where
// libmagic, which looks only at offset 0, names no other format we parse.
std::string pdf_if_prefixed(std::string mime, const unsigned char* head, std::size_t n) {
    if (kind_of(mime) != Kind::other) return mime;
    const std::string_view view(reinterpret_cast<const char*>(head), std::min<std::size_t>(n, 1024));
    return view.find("%PDF-") != std::string_view::npos ? "application/pdf" : mime;
}

} // namespace

std::string detect_content_type(int fd) {
    // libmagic reads from the descriptor's current offset; the duplicate shares that
    // offset, so rewind it (everything else here reads with pread).
    int dup_fd = ::dup(fd);
    if (dup_fd < 0) {
        return "application/octet-stream";
    }
    unsigned char head[256];
    const ssize_t n = ::pread(fd, head, sizeof head, 0);
    if (n > 0 && starts_like_prose(head, static_cast<std::size_t>(n))) {
        ::lseek(dup_fd, 0, SEEK_SET);
        const char* quick = magic_descriptor(thread_prose_cookie(), dup_fd);
        if (quick != nullptr && std::string_view(quick) == "text/plain") {
            ::close(dup_fd);
            return quick;
        }
    }
    ::lseek(dup_fd, 0, SEEK_SET);
    std::string mime = or_default(magic_descriptor(thread_cookie(), dup_fd));
    ::close(dup_fd);
    if (kind_of(mime) != Kind::other) return mime;
    unsigned char first[1024];
    const ssize_t got = ::pread(fd, first, sizeof first, 0);
    return pdf_if_prefixed(std::move(mime), first, got > 0 ? static_cast<std::size_t>(got) : 0);
}

std::string detect_content_type_buffer(const void* data, std::size_t size) {
    if (starts_like_prose(static_cast<const unsigned char*>(data), std::min<std::size_t>(size, 256))) {
        const char* quick = magic_buffer(thread_prose_cookie(), data, size);
        if (quick != nullptr && std::string_view(quick) == "text/plain") return quick;
    }
    return pdf_if_prefixed(or_default(magic_buffer(thread_cookie(), data, size)),
                           static_cast<const unsigned char*>(data), size);
}

std::string_view to_string(Kind kind) {
    // In the order of the enum.
    static constexpr std::string_view k_names[] = {"pdf", "image", "text", "document", "other"};
    return k_names[static_cast<std::size_t>(kind)];
}

Kind kind_of(std::string_view mime) {
    // Types libmagic gives text files outside text/*: JSON, newline-delimited JSON, CSV,
    // scripts, and XML.
    static constexpr std::string_view k_text_types[] = {
        "application/json", "application/x-ndjson", "application/csv", "application/javascript", "application/xml",
    };
    if (mime == "application/pdf") return Kind::pdf;
    if (is_document_type(mime)) return Kind::document;
    // XML is read as its raw text whatever it describes: SVG is text, not an image.
    if (mime.starts_with("text/") || mime.ends_with("+xml")) return Kind::text;
    if (std::find(std::begin(k_text_types), std::end(k_text_types), mime) != std::end(k_text_types)) {
        return Kind::text;
    }
    if (mime.starts_with("image/")) return Kind::image;
    return Kind::other;
}

} // namespace extractors

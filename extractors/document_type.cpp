#include "extractors/document_type.hpp"

#include "extractors/document_error.hpp"
#include "extractors/zip_archive.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <string_view>

#include <sys/mman.h>
#include <sys/stat.h>

namespace extractors {
namespace {

struct MainPart {
    std::string_view content_type; // of the main part in [Content_Types].xml
    std::string_view mime;
};

constexpr std::array<MainPart, 6> k_main_parts = {{
    {"ms-word.document.macroEnabled.main", "application/vnd.ms-word.document.macroEnabled.12"},
    {"wordprocessingml.document.main", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
    {"ms-excel.sheet.macroEnabled.main", "application/vnd.ms-excel.sheet.macroEnabled.12"},
    {"spreadsheetml.sheet.main", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
    {"ms-powerpoint.presentation.macroEnabled.main", "application/vnd.ms-powerpoint.presentation.macroEnabled.12"},
    {"presentationml.presentation.main", "application/vnd.openxmlformats-officedocument.presentationml.presentation"},
}};

constexpr unsigned char k_ole_magic[] = {0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1};

bool may_be_zip_document(const std::string& mime) {
    return mime == "application/zip" || mime == "application/octet-stream" || mime == "application/x-zip-compressed" ||
           is_ooxml_type(mime) || is_odf_type(mime) || is_epub_type(mime);
}

std::string from_package(std::span<const unsigned char> bytes, const std::string& mime) {
    core::Options names_only; // only the names and two small parts are read here
    names_only.max_unpacked_bytes = std::numeric_limits<std::uint64_t>::max();
    names_only.max_compression_ratio = std::numeric_limits<int>::max();
    try {
        ZipArchive zip(bytes, names_only);
        if (const auto declared = zip.read_small("mimetype", 128)) {
            std::string type = *declared;
            while (!type.empty() && (type.back() == '\n' || type.back() == '\r' || type.back() == ' ')) type.pop_back();
            if (is_odf_type(type) || is_epub_type(type)) return type;
        }
        if (const auto types = zip.read_small("[Content_Types].xml", 1 << 20)) {
            for (const MainPart& m : k_main_parts) {
                if (types->find(m.content_type) != std::string::npos) return std::string(m.mime);
            }
        }
    } catch (const DocumentError&) {
    }
    return mime;
}

bool is_encrypted_ole(std::span<const unsigned char> bytes) {
    if (bytes.size() < 512 || !std::equal(std::begin(k_ole_magic), std::end(k_ole_magic), bytes.begin())) return false;
    static constexpr unsigned char k_name[] = {'E', 0, 'n', 0, 'c', 0, 'r', 0, 'y', 0, 'p', 0, 't', 0,
                                               'i', 0, 'o', 0, 'n', 0, 'I', 0, 'n', 0, 'f', 0, 'o', 0};
    return std::search(bytes.begin(), bytes.end(), std::begin(k_name), std::end(k_name)) != bytes.end();
}

// libmagic 5.44 calls most mbox files text/plain: a "From " separator line followed by a
// header line ("Name: value") is an mbox.
bool looks_like_mbox(std::span<const unsigned char> bytes) {
    const std::string_view head(reinterpret_cast<const char*>(bytes.data()), std::min<std::size_t>(bytes.size(), 4096));
    if (!head.starts_with("From ")) return false;
    const std::size_t eol = head.find('\n');
    if (eol == std::string_view::npos) return false;
    const std::string_view next = head.substr(eol + 1, head.find('\n', eol + 1) - eol - 1);
    const std::size_t colon = next.find(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    return std::all_of(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(colon),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-'; });
}

} // namespace

bool is_ooxml_type(std::string_view mime) {
    return std::any_of(k_main_parts.begin(), k_main_parts.end(), [&](const MainPart& m) { return m.mime == mime; });
}

bool is_odf_type(std::string_view mime) {
    for (std::string_view odf :
         {"application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.spreadsheet",
          "application/vnd.oasis.opendocument.presentation"}) {
        if (mime.starts_with(odf)) return true; // with the -template forms
    }
    return false;
}

std::string refine_content_type(std::span<const unsigned char> bytes, const std::string& mime) {
    if (looks_like_zip(bytes) && may_be_zip_document(mime)) return from_package(bytes, mime);
    if ((mime == "application/encrypted" || mime.starts_with("application/CDF") ||
         mime == "application/x-ole-storage" || mime == "application/octet-stream") &&
        is_encrypted_ole(bytes)) {
        return "application/encrypted";
    }
    if (mime == "text/plain" && looks_like_mbox(bytes)) return "application/mbox";
    return mime;
}

std::string refine_content_type(int fd, const std::string& mime) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) return mime;
    const auto size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return mime;
    std::string refined = mime;
    try {
        refined = refine_content_type(std::span(static_cast<const unsigned char*>(p), size), mime);
    } catch (...) {
        ::munmap(p, size);
        throw;
    }
    ::munmap(p, size);
    return refined;
}

} // namespace extractors

#include "extractors/zip_archive.hpp"

#include "extractors/document_error.hpp"

#include <algorithm>
#include <cstring>

#include <zip.h>

namespace extractors {
namespace {

using core::ErrorCode;

constexpr std::uint64_t k_ratio_floor = 1 << 20; // parts below 1 MiB may compress as they like

[[noreturn]] void too_large(const std::string& why) {
    throw DocumentError(ErrorCode::too_large_unpacked,
                        "The document's parts would unpack past the budget: " + why + ".");
}

[[noreturn]] void damaged(const std::string& why) {
    throw DocumentError(ErrorCode::corrupt_file, "The document's zip archive is damaged (" + why + ").");
}

[[noreturn]] void encrypted() {
    throw DocumentError(ErrorCode::encrypted_document, "The document is password-protected.");
}

zip_t* open_buffer(std::span<const unsigned char> bytes) {
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* src = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    if (src == nullptr) {
        zip_error_fini(&error);
        throw std::bad_alloc();
    }
    zip_t* z = zip_open_from_source(src, ZIP_RDONLY, &error);
    if (z == nullptr) {
        zip_source_free(src);
        const int code = zip_error_code_zip(&error);
        zip_error_fini(&error);
        if (code == ZIP_ER_NOZIP) damaged("no zip directory");
        if (code == ZIP_ER_MEMORY) throw std::bad_alloc();
        damaged(code == ZIP_ER_INCONS ? "inconsistent directory" : "unreadable directory");
    }
    zip_error_fini(&error);
    return z;
}

// The declared sizes of every entry against the limits, before any byte is unpacked: a
// zip bomb declares its sizes honestly and stops here in microseconds.
void check_declared(zip_t* z, const core::Options& options) {
    const zip_int64_t n = zip_get_num_entries(z, 0);
    if (n > options.max_zip_entries) {
        too_large(std::to_string(n) + " entries, more than " + std::to_string(options.max_zip_entries));
    }
    std::uint64_t total = 0;
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0) damaged("unreadable entry");
        const std::uint64_t size = (st.valid & ZIP_STAT_SIZE) != 0 ? st.size : 0;
        const std::uint64_t packed = (st.valid & ZIP_STAT_COMP_SIZE) != 0 ? st.comp_size : 0;
        total += size;
        if (total > options.max_unpacked_bytes) {
            too_large("more than " + std::to_string(options.max_unpacked_bytes) + " bytes in all");
        }
        if (size > k_ratio_floor &&
            size / std::max<std::uint64_t>(packed, 1) > static_cast<std::uint64_t>(options.max_compression_ratio)) {
            too_large("a part compressed more than " + std::to_string(options.max_compression_ratio) + " to 1");
        }
    }
}

} // namespace

bool looks_like_zip(std::span<const unsigned char> bytes) {
    return bytes.size() >= 4 && bytes[0] == 'P' && bytes[1] == 'K' &&
           ((bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6));
}

ZipArchive::ZipArchive(std::span<const unsigned char> bytes, const core::Options& options)
    : m_budget(options.max_unpacked_bytes) {
    m_zip = open_buffer(bytes);
    try {
        check_declared(m_zip, options);
    } catch (...) {
        zip_discard(m_zip);
        throw;
    }
}

ZipArchive::~ZipArchive() {
    zip_discard(m_zip);
}

bool ZipArchive::has(const std::string& name) const {
    return zip_name_locate(m_zip, name.c_str(), 0) >= 0;
}

std::vector<std::string> ZipArchive::names() const {
    std::vector<std::string> out;
    const zip_int64_t n = zip_get_num_entries(m_zip, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char* name = zip_get_name(m_zip, static_cast<zip_uint64_t>(i), 0);
        if (name != nullptr) out.emplace_back(name);
    }
    return out;
}

std::optional<std::string> ZipArchive::read(const std::string& name) {
    const zip_int64_t index = zip_name_locate(m_zip, name.c_str(), 0);
    if (index < 0) return std::nullopt;
    return read_index(index, name);
}

std::optional<std::string> ZipArchive::read_small(const std::string& name, std::uint64_t max_bytes) {
    const zip_int64_t index = zip_name_locate(m_zip, name.c_str(), 0);
    zip_stat_t st;
    if (index < 0 || zip_stat_index(m_zip, static_cast<zip_uint64_t>(index), 0, &st) != 0) return std::nullopt;
    if ((st.valid & ZIP_STAT_SIZE) == 0 || st.size > max_bytes) return std::nullopt;
    const std::uint64_t saved = m_budget;
    m_budget = std::min(m_budget, max_bytes);
    std::string out = read_index(index, name);
    m_budget = saved - out.size();
    return out;
}

std::string ZipArchive::read_index(std::int64_t index, const std::string& name) {
    zip_stat_t st;
    if (zip_stat_index(m_zip, static_cast<zip_uint64_t>(index), 0, &st) != 0) damaged("unreadable entry");
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != ZIP_EM_NONE) encrypted();
    zip_file_t* f = zip_fopen_index(m_zip, static_cast<zip_uint64_t>(index), 0);
    if (f == nullptr) {
        const int code = zip_error_code_zip(zip_get_error(m_zip));
        if (code == ZIP_ER_NOPASSWD || code == ZIP_ER_WRONGPASSWD) encrypted();
        if (code == ZIP_ER_COMPNOTSUPP || code == ZIP_ER_ENCRNOTSUPP) {
            throw DocumentError(ErrorCode::unsupported_format,
                                "The document's part " + name + " uses a compression method this build cannot read.");
        }
        damaged("part " + name + " cannot be opened");
    }
    std::string out;
    char buf[65536];
    for (;;) {
        const zip_int64_t got = zip_fread(f, buf, sizeof buf);
        if (got < 0) {
            zip_fclose(f);
            damaged("part " + name + " cannot be unpacked");
        }
        if (got == 0) break;
        if (static_cast<std::uint64_t>(got) > m_budget) {
            zip_fclose(f);
            too_large("part " + name + " unpacks past the declared sizes");
        }
        m_budget -= static_cast<std::uint64_t>(got);
        out.append(buf, static_cast<std::size_t>(got));
    }
    zip_fclose(f);
    return out;
}

} // namespace extractors

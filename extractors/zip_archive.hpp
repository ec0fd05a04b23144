#pragma once

#include "core/options.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

struct zip;

namespace extractors {

/// A zip-based document (OOXML, ODF, EPUB) read from memory with libzip, as untrusted
/// input: opening checks the entry count, the declared unpacked total and each part's
/// compression ratio against the options (DocumentError too_large_unpacked), and reading a
/// part stops at the budget whatever its header declares. Damaged archives are
/// corrupt_file, encrypted parts encrypted_document. Not thread-safe; one per file.
class ZipArchive {
public:
    /// Opens `bytes` (which must outlive the archive). Throws DocumentError.
    ZipArchive(std::span<const unsigned char> bytes, const core::Options& options);
    ~ZipArchive();
    ZipArchive(const ZipArchive&) = delete;
    ZipArchive& operator=(const ZipArchive&) = delete;

    /// True when the archive has an entry of exactly this name.
    bool has(const std::string& name) const;
    /// The names of every entry, in the archive's order.
    std::vector<std::string> names() const;
    /// The unpacked bytes of entry `name`, or nullopt when there is none. Throws
    /// DocumentError (encrypted_document, too_large_unpacked, corrupt_file).
    std::optional<std::string> read(const std::string& name);
    /// read(name) when the entry declares at most `max_bytes`; nullopt otherwise.
    std::optional<std::string> read_small(const std::string& name, std::uint64_t max_bytes);

private:
    std::string read_index(std::int64_t index, const std::string& name);

    zip* m_zip = nullptr;
    std::uint64_t m_budget; // unpacked bytes still allowed
};

/// True when `bytes` start like a zip archive ("PK\3\4", or an empty archive's "PK\5\6").
bool looks_like_zip(std::span<const unsigned char> bytes);

} // namespace extractors

#pragma once

#include "core/fd.hpp"
#include "core/file_error.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace worker {

/// Where uploads are read and outputs written: the door every store goes through (the
/// filesystem store is one implementation; a new store is one more file and one row in
/// open_store). Keys are validated storage keys (jobs::storage_key_problem) or output keys
/// of core/layout.hpp. Every method throws core::FileError: storage_missing, not_regular_file,
/// too_large, or storage_error (transient() when a retry may help). Implementations are
/// thread-safe.
class Store {
public:
    virtual ~Store() = default;

    /// An input opened for reading: a descriptor the parsers can read (a regular file or a
    /// private spool) and its size, known before any byte was read.
    struct Input {
        core::Fd fd;
        std::uint64_t size = 0;
        /// The bytes' SHA-256 (lowercase hex) when the store hashed them as they arrived (the
        /// object store); empty when the reader hashes the descriptor itself.
        std::string sha256_hex;
    };

    /// Opens `key` for reading; fails with too_large (before any byte is read) when it is
    /// larger than `max_bytes`.
    virtual Input open_input(const std::string& key, std::uint64_t max_bytes) const = 0;

    /// Writes `bytes` to `key` atomically: readers see the old object or the whole new one.
    virtual void write(const std::string& key, std::string_view bytes) const = 0;

    /// Writes everything readable from `fd` (from offset 0) to `key` atomically.
    virtual void write_from(const std::string& key, int fd) const = 0;

    /// Copies the object at `from` to `to` (atomically at `to`; server-side where the store can).
    virtual void copy(const std::string& from, const std::string& to) const = 0;

    /// Removes `key`; a key that does not exist is not an error.
    virtual void remove(const std::string& key) const = 0;

    /// Removes every key of `keys` (missing ones are not an error). This default calls
    /// remove() for each; a store with batched deletes overrides it.
    virtual void remove_many(const std::vector<std::string>& keys) const;

    /// When `key` was last written, where the store can tell cheaply; nullopt otherwise (and
    /// for a missing key). The garbage collector only removes temporaries it can age.
    virtual std::optional<std::chrono::system_clock::time_point> modified(const std::string& key) const;

    /// Calls `visit` for every key under `prefix` ("thumbnails/"), one at a time, in no
    /// particular order, without holding the whole listing in memory.
    virtual void list(const std::string& prefix, const std::function<void(const std::string& key)>& visit) const = 0;

    /// Whether the store answers now (the object store asks its endpoint; a folder always
    /// does). May take seconds: call it off the request path.
    virtual bool reachable() const { return true; }

    /// A URL that lets anyone GET `key` for `seconds` without credentials (the object store's
    /// presigned URL); nullopt where the store has none (a folder).
    virtual std::optional<std::string> presigned_url(const std::string& key, int seconds) const {
        (void)key, (void)seconds;
        return std::nullopt;
    }

    /// Where `key` is, for messages and logs ("/data/files/ab/f1.blob", "s3://bucket/ab/f1.blob").
    virtual std::string describe(const std::string& key) const = 0;

    /// A file's size and first bytes, for scheduling (which lane a job goes to).
    struct Peek {
        std::uint64_t size = 0;
        std::string head; // at most the bytes asked for
    };

    /// The size and first `bytes` bytes (0: the size alone) of `key`, read without fetching the
    /// rest (the object store asks HEAD, then a range). Throws core::FileError as open_input does.
    virtual Peek peek(const std::string& key, std::size_t bytes) const;

    /// Reads a whole (small) object: open_input, then every byte.
    std::string read_all(const std::string& key, std::uint64_t max_bytes) const;
};

/// The store named by INGEST_STORAGE_ROOT: a folder (made when `create`), or a URL whose
/// scheme has a store. Throws core::FileError (storage_error) when it cannot be opened.
std::unique_ptr<Store> open_store(const std::string& root, bool create);

/// open_store for a root that must already exist: a folder is never made (a missing one
/// throws), an object store's bucket is checked as with `create`.
std::unique_ptr<Store> open_existing_store(const std::string& root);

} // namespace worker

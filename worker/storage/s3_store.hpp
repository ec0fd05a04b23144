#pragma once

#include "worker/storage/s3_client.hpp"
#include "worker/storage/store.hpp"

namespace worker {

/// The object store (SPEC "Storage"): keys are objects under `s3://BUCKET/PREFIX/`. Inputs:
/// HEAD for the size, then one GET streamed into a private spool (ranged GETs resume a dropped
/// connection; If-Match on the HEAD's ETag, so a replaced object restarts from the start).
/// Outputs: PUT with Content-Type and Cache-Control; copies are server-side (CopyObject).
/// 404 → storage_missing, 403 → storage_error; throttling, 5xx, resets and timeouts are
/// retried here with backoff, then reported transient. Thread-safe.
class S3Store final : public Store {
public:
    explicit S3Store(S3Location location);

    /// Start-up check of the bucket (HEAD). Throws core::FileError naming the bucket when it does
    /// not exist or the credentials are refused (not transient); transient when unreachable.
    void check_bucket() const;

    Input open_input(const std::string& key, std::uint64_t max_bytes) const override;
    Peek peek(const std::string& key, std::size_t bytes) const override;
    void write(const std::string& key, std::string_view bytes) const override;
    void write_from(const std::string& key, int fd) const override;
    void copy(const std::string& from, const std::string& to) const override;
    void remove(const std::string& key) const override;
    /// DeleteObjects, up to 1000 keys a request; a key the reply reports as not deleted fails
    /// the call (storage_error, transient when its code is a throttling or internal error).
    void remove_many(const std::vector<std::string>& keys) const override;
    void list(const std::string& prefix, const std::function<void(const std::string& key)>& visit) const override;
    std::string describe(const std::string& key) const override;
    bool reachable() const override;
    std::optional<std::string> presigned_url(const std::string& key, int seconds) const override;

    const S3Location& location() const { return m_client.location(); }

private:
    struct Head {
        std::uint64_t size = 0;
        std::string etag;
    };
    Head head(const std::string& key, std::uint64_t max_bytes) const;
    /// Downloads into `fd`, hashing the bytes as they arrive into `sha256`; false when the
    /// object changed (the caller starts again).
    bool download(const std::string& key, const Head& head, int fd, std::string& sha256) const;
    /// perform() again while the reply is transient (no reply, 408, 429, 5xx), with backoff.
    S3Response call(const S3Request& request) const;
    /// `reply` to a HEAD refused without a body, replaced by a GET's reply that names the code.
    S3Response with_error_body(S3Request request, S3Response reply) const;
    void put(const std::string& key, S3Request request) const;
    void remove_batch(const std::vector<std::string>& keys) const;
    [[noreturn]] void fail(const S3Response& reply, const std::string& key, const std::string& what) const;

    S3Client m_client;
};

/// The object store named by `s3://BUCKET[/PREFIX]` and the AWS variables. With `check`, the
/// bucket is checked first: a missing bucket or refused credentials throw core::FileError (not
/// transient); an unreachable endpoint does not (the worker starts, and retries each job).
std::unique_ptr<Store> open_s3_store(const std::string& root, bool check);

/// Whether a reply is worth another try: no HTTP reply at all, 408, 429 or 5xx.
bool transient_reply(const S3Response& reply);

/// The Content-Type of an output by its key ("…/288.webp" → image/webp).
std::string content_type_of(const std::string& key);

} // namespace worker

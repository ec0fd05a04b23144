#include "worker/storage/s3_store.hpp"

#include "core/backoff.hpp"
#include "worker/storage/s3_xml.hpp"
#include "worker/storage/sigv4_presign.hpp"
#include "worker/storage/spool.hpp"
#include "worker/storage/spool_hasher.hpp"

#include <algorithm>
#include <thread>

#include <openssl/evp.h>
#include <sys/stat.h>

namespace worker {
namespace {

constexpr int k_attempts = 6;          // per request, before the failure is reported transient
constexpr int k_download_restarts = 3; // a changed object is read again from the start this often
const char* const k_cache_control = "Cache-Control: private, max-age=3600";

core::Backoff request_backoff() {
    return core::Backoff(std::chrono::milliseconds(100), std::chrono::milliseconds(3000));
}

// Content-MD5 (base64 of the MD5), which S3 requires on DeleteObjects.
std::string content_md5(std::string_view body) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_Digest(body.data(), body.size(), md, &len, EVP_md5(), nullptr);
    unsigned char out[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
    const int n = EVP_EncodeBlock(out, md, static_cast<int>(len));
    return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

std::string reply_summary(const S3Response& r) {
    if (r.status == 0) return r.transport_error.empty() ? "no reply" : r.transport_error;
    const S3ErrorReply e = parse_s3_error(r.body);
    std::string s = "HTTP " + std::to_string(r.status);
    if (!e.code.empty()) s += " " + e.code;
    // A known refusal says what to check, in place of the server's own (longer) message.
    const std::string hint = s3_error_hint(e.code);
    if (!hint.empty()) return s + ": " + hint;
    if (!e.message.empty()) s += ": " + e.message;
    while (!s.empty() && s.back() == '.') s.pop_back(); // the sentence ends once
    return s;
}

} // namespace

bool transient_reply(const S3Response& reply) {
    return (reply.status == 0 && !reply.aborted) || reply.status == 408 || reply.status == 429 || reply.status >= 500;
}

std::string content_type_of(const std::string& key) {
    auto ends = [&](const char* suffix) {
        const std::string s(suffix);
        return key.size() >= s.size() && key.compare(key.size() - s.size(), s.size(), s) == 0;
    };
    if (ends(".webp")) return "image/webp";
    if (ends(".txt")) return "text/plain; charset=utf-8";
    return "application/octet-stream";
}

std::unique_ptr<Store> open_s3_store(const std::string& root, bool check) {
    std::string problem;
    std::optional<S3Location> loc = parse_s3_location(root, problem);
    if (!loc) throw core::FileError(core::ErrorCode::storage_error, "INGEST_STORAGE_ROOT: " + problem);
    auto store = std::make_unique<S3Store>(std::move(*loc));
    try {
        if (check) store->check_bucket();
    } catch (const core::FileError& e) {
        if (!e.transient()) throw;
    }
    return store;
}

S3Store::S3Store(S3Location location) : m_client(std::move(location)) {}

S3Response S3Store::with_error_body(S3Request request, S3Response reply) const {
    // A refused HEAD has no body to say why (wrong secret, region or clock): ask once with a
    // one-byte GET, whose error reply names the code. Only refusals: a 5xx is retried as it is.
    const bool refused = reply.status == 400 || reply.status == 401 || reply.status == 403;
    if (request.method != "HEAD" || !refused || !reply.body.empty()) return reply;
    request.method = "GET";
    request.headers.push_back("Range: bytes=0-0");
    S3Response detail = m_client.perform(request);
    return detail.status == reply.status ? detail : reply;
}

void S3Store::check_bucket() const {
    const S3Location& loc = location();
    S3Request req;
    req.method = "HEAD";
    req.url = loc.bucket_url() + "/";
    const S3Response r = with_error_body(req, m_client.perform(req));
    if (r.status >= 200 && r.status < 300) return;
    const std::string where = "bucket " + loc.bucket + " at " + loc.endpoint;
    if (r.status == 404) throw core::FileError(core::ErrorCode::storage_error, "the " + where + " does not exist");
    if (r.status == 401 || r.status == 403) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "the credentials were refused by the " + where + " (" + reply_summary(r) + ")");
    }
    if (r.status == 301 || r.status == 400) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "the " + where + " refused the request (" + reply_summary(r) + ")");
    }
    throw core::FileError(core::ErrorCode::storage_error, "the " + where + " is unreachable: " + reply_summary(r),
                          true);
}

S3Response S3Store::call(const S3Request& request) const {
    core::Backoff backoff = request_backoff();
    for (int attempt = 1;; ++attempt) {
        S3Response r = m_client.perform(request);
        if (!transient_reply(r) || attempt >= k_attempts) return r;
        std::this_thread::sleep_for(backoff.next());
    }
}

void S3Store::fail(const S3Response& r, const std::string& key, const std::string& what) const {
    const std::string where = describe(key);
    if (r.status == 404) {
        throw core::FileError(core::ErrorCode::storage_missing, "No object is stored at " + where + ".");
    }
    if (r.status == 403 || r.status == 401) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "The object store refused to " + what + " " + where + " (" + reply_summary(r) + ").");
    }
    throw core::FileError(core::ErrorCode::storage_error,
                          "Cannot " + what + " " + where + ": " + reply_summary(r) + ".", transient_reply(r));
}

S3Store::Head S3Store::head(const std::string& key, std::uint64_t max_bytes) const {
    S3Request req;
    req.method = "HEAD";
    req.url = location().object_url(key);
    const S3Response r = with_error_body(req, call(req));
    if (r.status < 200 || r.status >= 300) fail(r, key, "read");
    const Head h{r.content_length, r.etag};
    if (h.size > max_bytes) {
        throw core::FileError(core::ErrorCode::too_large, "The file is " + std::to_string(h.size) +
                                                              " bytes, over the limit of " + std::to_string(max_bytes) +
                                                              " bytes.");
    }
    return h;
}

bool S3Store::download(const std::string& key, const Head& head, int fd, std::string& sha256) const {
    std::uint64_t offset = 0;
    bool changed = false;
    SpoolHasher spool(fd, head.size); // written and hashed beside the download
    core::Backoff backoff = request_backoff();
    for (int failures = 0; offset < head.size;) {
        S3Request req;
        req.url = location().object_url(key);
        if (!head.etag.empty()) req.headers.push_back("If-Match: " + head.etag);
        const std::uint64_t start = offset;
        if (start > 0) req.headers.push_back("Range: bytes=" + std::to_string(start) + "-");
        bool first = true;
        req.sink = [&](const S3Response& reply, long status, const char* data, std::size_t size) {
            if (first) {
                first = false;
                if (!head.etag.empty() && !reply.etag.empty() && reply.etag != head.etag) return !(changed = true);
                if (status == 200 && offset > 0) { // the server sent it all again
                    offset = 0;
                    spool.restart();
                }
            }
            if (offset + size > head.size) return !(changed = true);
            if (!spool.add(data, size)) return false;
            offset += size;
            return true;
        };
        const S3Response r = m_client.perform(req);
        // 412: If-Match failed; 416: the resumed range is past the end of a shorter new object.
        if (changed || r.status == 412 || r.status == 416) return false;
        if (r.aborted) {
            spool.finish(); // throws the spool's own error
            throw core::FileError(core::ErrorCode::storage_error, "cannot spool " + describe(key), true);
        }
        const bool resumable = r.status == 0 || (r.status >= 200 && r.status < 300);
        if (!resumable && !transient_reply(r)) fail(r, key, "read");
        if (offset > start) {
            failures = 0;
            backoff.reset();
            continue; // resume at once from where the connection dropped
        }
        if (++failures >= k_attempts) fail(r, key, "read");
        std::this_thread::sleep_for(backoff.next());
    }
    sha256 = spool.finish();
    return true;
}

Store::Input S3Store::open_input(const std::string& key, std::uint64_t max_bytes) const {
    core::Fd spool = open_spool();
    for (int restart = 0; restart <= k_download_restarts; ++restart) {
        const Head h = head(key, max_bytes);
        if (restart > 0) reset_spool(spool.get());
        std::string sha256;
        if (download(key, h, spool.get(), sha256)) return Input{std::move(spool), h.size, std::move(sha256)};
    }
    throw core::FileError(core::ErrorCode::storage_error,
                          "The object " + describe(key) + " kept changing while it was read.", true);
}

// One HEAD, then (for a non-empty object, when bytes are asked for) one GET of the first bytes;
// single attempts, no retries: a hint that fails sends the job the ordinary way.
Store::Peek S3Store::peek(const std::string& key, std::size_t bytes) const {
    S3Request req;
    req.method = "HEAD";
    req.url = location().object_url(key);
    const S3Response h = m_client.perform(req);
    if (h.status < 200 || h.status >= 300) fail(h, key, "read");
    Peek p{h.content_length, {}};
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, p.size));
    if (want == 0) return p;
    req.method = "GET";
    req.headers.push_back("Range: bytes=0-" + std::to_string(want - 1));
    req.sink = [&](const S3Response&, long, const char* data, std::size_t size) {
        p.head.append(data, std::min(size, want - p.head.size()));
        return p.head.size() < want; // a server that ignores the range is cut off here
    };
    const S3Response r = m_client.perform(req);
    if (p.head.size() < want && (r.status < 200 || r.status >= 300)) fail(r, key, "read");
    return p;
}

void S3Store::put(const std::string& key, S3Request req) const {
    req.method = "PUT";
    req.url = location().object_url(key);
    req.headers.push_back("Content-Type: " + content_type_of(key));
    req.headers.push_back(k_cache_control);
    const S3Response r = call(req);
    if (r.status < 200 || r.status >= 300) fail(r, key, "write");
}

void S3Store::write(const std::string& key, std::string_view bytes) const {
    S3Request req;
    req.body = bytes;
    put(key, std::move(req));
}

void S3Store::write_from(const std::string& key, int fd) const {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        throw core::FileError(core::ErrorCode::storage_error, "cannot upload to " + describe(key) + ": not a file");
    }
    S3Request req;
    req.body_fd = fd;
    req.body_size = static_cast<std::uint64_t>(st.st_size);
    put(key, std::move(req));
}

void S3Store::copy(const std::string& from, const std::string& to) const {
    S3Request req;
    req.method = "PUT";
    req.url = location().object_url(to);
    req.headers.push_back("x-amz-copy-source: " + location().copy_source(from));
    S3Response r = call(req);
    // CopyObject may answer 200 and put its error in the body.
    if (r.status == 200 && !parse_s3_error(r.body).code.empty()) r.status = 500;
    if (r.status < 200 || r.status >= 300) fail(r, from, "copy");
}

void S3Store::remove(const std::string& key) const {
    S3Request req;
    req.method = "DELETE";
    req.url = location().object_url(key);
    const S3Response r = call(req);
    if ((r.status >= 200 && r.status < 300) || r.status == 404) return;
    fail(r, key, "remove");
}

void S3Store::remove_many(const std::vector<std::string>& keys) const {
    constexpr std::size_t k_batch = 1000; // the most one DeleteObjects request may name
    for (std::size_t i = 0; i < keys.size(); i += k_batch) {
        const auto first = keys.begin() + static_cast<std::ptrdiff_t>(i);
        remove_batch(
            std::vector<std::string>(first, first + static_cast<std::ptrdiff_t>(std::min(k_batch, keys.size() - i))));
    }
}

void S3Store::remove_batch(const std::vector<std::string>& keys) const {
    std::vector<std::string> full;
    full.reserve(keys.size());
    for (const auto& k : keys) full.push_back(location().prefix + k);
    const std::string body = s3_delete_body(full);
    S3Request req;
    req.method = "POST";
    // "delete=", not "delete": libcurl 7.88 signs a bare parameter without the "=" that
    // SigV4's canonical query wants, and a verifying server refuses the signature.
    req.url = location().bucket_url() + "/?delete=";
    req.body = body;
    req.headers.push_back("Content-Type: application/xml");
    req.headers.push_back("Content-MD5: " + content_md5(body));
    S3Response r = call(req);
    std::vector<S3DeleteError> errors;
    if (r.status >= 200 && r.status < 300 && !parse_s3_delete_result(r.body, errors)) r.status = 500;
    if (r.status < 200 || r.status >= 300) fail(r, keys.front(), "remove");
    for (const auto& e : errors) {
        if (e.code == "NoSuchKey") continue; // already gone
        const std::string key = e.key.rfind(location().prefix, 0) == 0 ? e.key.substr(location().prefix.size()) : e.key;
        const bool transient = e.code == "SlowDown" || e.code == "InternalError" || e.code == "ServiceUnavailable";
        throw core::FileError(core::ErrorCode::storage_error,
                              "Cannot remove " + describe(key) + ": " + e.code + " " + e.message + ".", transient);
    }
}

void S3Store::list(const std::string& prefix, const std::function<void(const std::string&)>& visit) const {
    const S3Location& loc = location();
    std::string token;
    do {
        // Query parameters sorted and encoded, as SigV4's canonical query wants them.
        std::string query = "?";
        if (!token.empty()) query += "continuation-token=" + uri_encode(token) + "&";
        query += "list-type=2&prefix=" + uri_encode(loc.prefix + prefix);
        S3Request req;
        req.url = loc.bucket_url() + "/" + query;
        const S3Response r = call(req);
        if (r.status < 200 || r.status >= 300) fail(r, prefix, "list");
        S3ListPage page;
        if (!parse_s3_list(r.body, page)) fail(S3Response{500, "", false, "", "", 0, false, r.body}, prefix, "list");
        for (const auto& k : page.keys) {
            if (k.rfind(loc.prefix, 0) == 0) visit(k.substr(loc.prefix.size()));
        }
        token = page.truncated ? page.next_token : std::string();
    } while (!token.empty());
}

std::optional<std::string> S3Store::presigned_url(const std::string& key, int seconds) const {
    const S3Location& loc = location();
    PresignRequest r;
    r.access_key = loc.access_key;
    r.secret_key = loc.secret_key;
    r.session_token = loc.session_token;
    r.region = loc.region;
    r.host = loc.host();
    r.url_base = loc.object_url(key);
    r.path = r.url_base.substr(r.url_base.find('/', r.url_base.find("://") + 3));
    r.now = std::time(nullptr);
    r.expires_s = seconds;
    return presign_get(r);
}

bool S3Store::reachable() const {
    S3Request req;
    req.method = "HEAD";
    req.url = location().bucket_url() + "/";
    return m_client.perform(req).status != 0; // any HTTP reply: the endpoint is there
}

std::string S3Store::describe(const std::string& key) const {
    return location().describe(key);
}

} // namespace worker

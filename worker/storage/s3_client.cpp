#include "worker/storage/s3_client.hpp"

#include <cerrno>
#include <cstring>

#include <curl/curl.h>
#include <unistd.h>

namespace worker {
namespace {

constexpr std::size_t k_max_kept_body = 1 << 20;

struct Transfer {
    const S3Request* request = nullptr;
    S3Response* response = nullptr;
    CURL* curl = nullptr;
    std::uint64_t sent = 0;
};

bool starts_with_ci(std::string_view line, std::string_view name) {
    if (line.size() < name.size()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(line[i])) != name[i]) return false;
    }
    return true;
}

std::string header_value(std::string_view line, std::size_t name_len) {
    std::string_view v = line.substr(name_len);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == '\r' || v.back() == '\n' || v.back() == ' ')) v.remove_suffix(1);
    return std::string(v);
}

std::size_t on_header(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::string_view line(data, size * n);
    S3Response& r = *t->response;
    if (line.rfind("HTTP/", 0) == 0) { // a new reply (after 100 Continue or a redirect)
        r.etag.clear();
        r.content_type.clear();
        r.has_length = false;
    } else if (starts_with_ci(line, "etag:")) {
        r.etag = header_value(line, 5);
    } else if (starts_with_ci(line, "content-type:")) {
        r.content_type = header_value(line, 13);
    } else if (starts_with_ci(line, "content-length:")) {
        r.content_length = std::strtoull(header_value(line, 15).c_str(), nullptr, 10);
        r.has_length = true;
    }
    return size * n;
}

std::size_t on_body(char* data, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t len = size * n;
    long status = 0;
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300 && t->request->sink) {
        if (!t->request->sink(*t->response, status, data, len)) {
            t->response->aborted = true;
            return 0;
        }
        return len;
    }
    std::string& body = t->response->body;
    if (body.size() < k_max_kept_body) body.append(data, std::min(len, k_max_kept_body - body.size()));
    return len;
}

std::size_t on_read(char* buffer, std::size_t size, std::size_t n, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const S3Request& req = *t->request;
    const std::size_t room = size * n;
    if (req.body_fd < 0) {
        const std::size_t left = req.body.size() - static_cast<std::size_t>(t->sent);
        const std::size_t take = std::min(room, left);
        std::memcpy(buffer, req.body.data() + t->sent, take);
        t->sent += take;
        return take;
    }
    for (;;) {
        const ssize_t got = ::pread(req.body_fd, buffer, room, static_cast<off_t>(t->sent));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return CURL_READFUNC_ABORT;
        t->sent += static_cast<std::uint64_t>(got);
        return static_cast<std::size_t>(got);
    }
}

void set_method(CURL* curl, const S3Request& req, Transfer& t) {
    if (req.method == "HEAD") {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else if (req.method == "PUT") {
        const std::uint64_t size = req.body_fd >= 0 ? req.body_size : req.body.size();
        curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
        curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(curl, CURLOPT_READDATA, &t);
        curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
    } else if (req.method == "POST") {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.data());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    } else if (req.method != "GET") {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
    }
}

} // namespace

S3Client::S3Client(S3Location location) : m_location(std::move(location)) {
    static const CURLcode once = curl_global_init(CURL_GLOBAL_DEFAULT);
    (void)once;
}

S3Client::~S3Client() {
    for (void* h : m_idle) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* S3Client::acquire() const {
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            void* h = m_idle.back();
            m_idle.pop_back();
            return h;
        }
    }
    return curl_easy_init();
}

void S3Client::release(void* handle) const {
    std::lock_guard lock(m_mutex);
    m_idle.push_back(handle);
}

S3Response S3Client::perform(const S3Request& req) const {
    S3Response response;
    CURL* curl = static_cast<CURL*>(acquire());
    if (curl == nullptr) {
        response.transport_error = "cannot make a libcurl handle";
        return response;
    }
    curl_easy_reset(curl); // keeps the connection cache
    Transfer t{&req, &response, curl, 0};
    curl_slist* headers = nullptr;
    for (const auto& h : req.headers) headers = curl_slist_append(headers, h.c_str());
    // No "Expect:" header to suppress 100-continue: libcurl 7.88 signs an emptied header that it
    // then does not send, and a verifying server refuses the signature. A short wait instead.
    curl_easy_setopt(curl, CURLOPT_EXPECT_100_TIMEOUT_MS, 200L);
    // S3 wants the payload's hash named; libcurl 7.88 signs this header and uses its value.
    headers = curl_slist_append(headers, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (!m_location.session_token.empty()) {
        headers = curl_slist_append(headers, ("x-amz-security-token: " + m_location.session_token).c_str());
    }
    curl_easy_setopt(curl, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L); // stalled 30 s: a timeout
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024); // fewer, larger writes into the spool
    if (!m_location.access_key.empty()) {
        const std::string sigv4 = "aws:amz:" + m_location.region + ":s3";
        curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
        curl_easy_setopt(curl, CURLOPT_USERNAME, m_location.access_key.c_str());
        curl_easy_setopt(curl, CURLOPT_PASSWORD, m_location.secret_key.c_str());
    }
    set_method(curl, req, t);
    const CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (rc == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    } else {
        response.status = 0;
        response.transport_error = curl_easy_strerror(rc);
    }
    release(curl);
    return response;
}

} // namespace worker

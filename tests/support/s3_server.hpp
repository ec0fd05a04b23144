#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

namespace testsupport {

/// Which S3-compatible server a test runs against.
enum class S3Kind {
    s3rver, ///< s3rver (npm, tests/s3): fast, checks access keys but not signatures
    swift,  ///< OpenStack Swift's s3api (Debian's swift-proxy …): verifies every SigV4 signature
};

/// How the server is started.
struct S3ServerOptions {
    S3Kind kind = S3Kind::s3rver;
    /// Swift only: a libfaketime offset (`+1h`) for the proxy's clock, so requests look skewed.
    std::string proxy_clock;
    /// Swift only: the secret key of user `test:tester` ("" for `testing`).
    std::string secret;
};

/// A private S3-compatible server on a free loopback port with bucket `uploads`, started in
/// the constructor (which waits until it answers) and killed with its process group in the
/// destructor. Objects are put and inspected with boto3 (tests/s3/s3_client.py, a real
/// client, SigV4-signed), never with ingestd itself.
class S3Server {
public:
    explicit S3Server(S3ServerOptions options = {});
    ~S3Server();
    S3Server(const S3Server&) = delete;
    S3Server& operator=(const S3Server&) = delete;

    /// Whether the server of `kind` and the client (boto3) are installed; `why` says what is
    /// missing (tests skip with it).
    static bool available(S3Kind kind = S3Kind::s3rver, std::string* why = nullptr);

    int port() const { return m_port; }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    /// The access key and secret the server accepts.
    std::string access_key() const;
    std::string secret_key() const;

    /// PUTs `bytes` at `bucket/key` (through a file: binary-safe).
    void put(const std::string& key, const std::string& bytes, const std::string& bucket = "uploads") const;
    /// PUTs the file `path` at `key` in bucket uploads.
    void put_file(const std::string& key, const std::filesystem::path& path) const;
    /// PUTs `dir/NAME` at `prefix + NAME` in bucket uploads for every one of `names`, in one
    /// client process.
    void put_files(const std::filesystem::path& dir, const std::string& prefix,
                   const std::vector<std::string>& names) const;
    /// PUTs the same `bytes` at every one of `keys` in bucket uploads, in one client process.
    void put_many(const std::vector<std::string>& keys, const std::string& bytes) const;
    /// The object's bytes ("" with `found` false when there is none).
    std::string get(const std::string& key, bool* found = nullptr, const std::string& bucket = "uploads") const;
    /// The object's reply headers, lowercase names ("" when missing).
    std::string headers(const std::string& key, const std::string& bucket = "uploads") const;

    /// The AWS variables that reach this server (for a worker's environment or setenv).
    std::map<std::string, std::string> env() const;

    void kill_hard();
    void start();
    /// Swift only: restarts the server (same port and data) accepting only `secret` from now on,
    /// as when the credentials are rotated under a running worker.
    void rotate_secret(const std::string& secret);

private:
    std::string client(const std::string& args, int* status = nullptr, const std::string& input = "") const;
    void wait_ready() const;

    S3ServerOptions m_options;
    int m_port = 0;
    pid_t m_pid = -1;
    std::filesystem::path m_dir;
};

} // namespace testsupport

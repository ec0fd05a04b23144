#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

namespace testsupport {

/// A private S3-compatible server (s3rver, installed into tests/s3/node_modules by
/// scripts/install-deps.sh) on a free loopback port with bucket `uploads`, started in the
/// constructor (which waits until it answers) and killed in the destructor. Objects are put
/// and inspected with the curl CLI (a real client, SigV4-signed), never with ingestd itself.
class S3Server {
public:
    S3Server();
    ~S3Server();
    S3Server(const S3Server&) = delete;
    S3Server& operator=(const S3Server&) = delete;

    /// Whether s3rver and node are installed (tests skip without them).
    static bool available();

    int port() const { return m_port; }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }

    /// PUTs `bytes` at `bucket/key` (through a file: binary-safe).
    void put(const std::string& key, const std::string& bytes, const std::string& bucket = "uploads") const;
    /// PUTs the same `bytes` at every one of `keys` in bucket uploads, in one curl process.
    void put_many(const std::vector<std::string>& keys, const std::string& bytes) const;
    /// The object's bytes ("" with `found` false when there is none).
    std::string get(const std::string& key, bool* found = nullptr, const std::string& bucket = "uploads") const;
    /// The object's reply headers, lowercase names ("" when missing).
    std::string headers(const std::string& key, const std::string& bucket = "uploads") const;

    /// The AWS variables that reach this server (for a worker's environment or setenv).
    std::map<std::string, std::string> env() const;

    void kill_hard();
    void start();

private:
    std::string curl(const std::string& args, int* status = nullptr) const;

    int m_port = 0;
    pid_t m_pid = -1;
    std::filesystem::path m_dir;
};

} // namespace testsupport

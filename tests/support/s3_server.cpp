#include "tests/support/s3_server.hpp"

#include "tests/support/redis_server.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace testsupport {
namespace {

std::filesystem::path s3rver_bin() {
    return std::filesystem::path(INGESTD_SOURCE_DIR) / "tests/s3/node_modules/.bin/s3rver";
}

} // namespace

bool S3Server::available() {
    return std::filesystem::exists(s3rver_bin()) && run_command("command -v node").size() > 0;
}

std::map<std::string, std::string> S3Server::env() const {
    return {{"AWS_ACCESS_KEY_ID", "S3RVER"},
            {"AWS_SECRET_ACCESS_KEY", "S3RVER"},
            {"AWS_REGION", "us-east-1"},
            {"AWS_ENDPOINT_URL", endpoint()}};
}

S3Server::S3Server() {
    m_port = free_port();
    std::random_device rd;
    m_dir = std::filesystem::temp_directory_path() / ("ingestd-s3-" + std::to_string(rd()));
    std::filesystem::create_directories(m_dir);
    start();
}

S3Server::~S3Server() {
    kill_hard();
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

void S3Server::start() {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const std::string port = std::to_string(m_port), dir = (m_dir / "data").string();
        const std::string log = (m_dir / "s3rver.log").string();
        std::FILE* out = std::fopen(log.c_str(), "a");
        if (out != nullptr) ::dup2(::fileno(out), 1), ::dup2(::fileno(out), 2);
        ::setenv("NODE_OPTIONS", "--openssl-legacy-provider", 1); // s3rver's listing tokens use DES
        ::execl(s3rver_bin().c_str(), "s3rver", "--directory", dir.c_str(), "--address", "127.0.0.1", "--port",
                port.c_str(), "--configure-bucket", "uploads", "--silent", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    m_pid = pid;
    for (int i = 0; i < 200; ++i) {
        int status = 0;
        curl("-o /dev/null " + endpoint() + "/", &status);
        if (status == 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the poll interval: until it answers
    }
    throw std::runtime_error("s3rver did not answer on port " + std::to_string(m_port));
}

void S3Server::kill_hard() {
    if (m_pid <= 0) return;
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    m_pid = -1;
}

std::string S3Server::curl(const std::string& args, int* status) const {
    return run_command("curl -sf --aws-sigv4 aws:amz:us-east-1:s3 -u S3RVER:S3RVER "
                       "-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' " +
                           args + " 2>/dev/null",
                       status);
}

void S3Server::put(const std::string& key, const std::string& bytes, const std::string& bucket) const {
    const auto file = m_dir / ("upload-" + std::to_string(std::random_device{}()));
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    int status = 0;
    curl("-o /dev/null -T " + file.string() + " " + endpoint() + "/" + bucket + "/" + key, &status);
    std::filesystem::remove(file);
    if (status != 0) throw std::runtime_error("cannot upload " + key + " to s3rver");
}

void S3Server::put_many(const std::vector<std::string>& keys, const std::string& bytes) const {
    const auto file = m_dir / "upload-many", config = m_dir / "upload-many.curlrc";
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    {
        std::ofstream cfg(config);
        for (const auto& k : keys) {
            cfg << "upload-file = \"" << file.string() << "\"\nurl = \"" << endpoint() << "/uploads/" << k
                << "\"\noutput = /dev/null\n";
        }
    }
    int status = 0;
    curl("-K " + config.string(), &status); // one process, one connection
    if (status != 0) throw std::runtime_error("cannot upload many objects to s3rver");
}

std::string S3Server::get(const std::string& key, bool* found, const std::string& bucket) const {
    int status = 0;
    std::string body = curl(endpoint() + "/" + bucket + "/" + key, &status);
    if (found != nullptr) *found = status == 0;
    return status == 0 ? body : std::string();
}

std::string S3Server::headers(const std::string& key, const std::string& bucket) const {
    std::string h = curl("-I " + endpoint() + "/" + bucket + "/" + key);
    std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return h;
}

} // namespace testsupport

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

const std::filesystem::path k_s3_dir = std::filesystem::path(INGESTD_SOURCE_DIR) / "tests/s3";

std::filesystem::path s3rver_bin() {
    return k_s3_dir / "node_modules/.bin/s3rver";
}

bool has(const std::string& command) {
    int status = -1;
    run_command(command + " >/dev/null 2>&1", &status);
    return status == 0;
}

// Starts `argv` in a process group of its own (killed as a whole), output to `log`.
pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& log,
            const std::map<std::string, std::string>& env) {
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    ::setpgid(0, 0);
    std::FILE* out = std::fopen(log.c_str(), "a");
    if (out != nullptr) ::dup2(::fileno(out), 1), ::dup2(::fileno(out), 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
}

} // namespace

bool S3Server::available(S3Kind kind, std::string* why) {
    std::string missing;
    if (!has("/usr/bin/python3 -c 'import boto3'")) missing = "python3-boto3 (the tests' S3 client)";
    if (kind == S3Kind::s3rver && (!std::filesystem::exists(s3rver_bin()) || !has("command -v node")))
        missing = "s3rver (npm, tests/s3)";
    if (kind == S3Kind::swift && !has("/usr/bin/python3 -c 'import swift.common.middleware.s3api'"))
        missing = "OpenStack Swift's s3api (swift-proxy, swift-account, swift-container, swift-object)";
    if (why != nullptr) *why = missing.empty() ? "" : missing + " is not installed (scripts/install-deps.sh)";
    return missing.empty();
}

std::string S3Server::access_key() const {
    return m_options.kind == S3Kind::swift ? "test:tester" : "S3RVER";
}

std::string S3Server::secret_key() const {
    if (m_options.kind != S3Kind::swift) return "S3RVER";
    return m_options.secret.empty() ? "testing" : m_options.secret;
}

void S3Server::rotate_secret(const std::string& secret) {
    kill_hard();
    m_options.secret = secret;
    start();
}

std::map<std::string, std::string> S3Server::env() const {
    return {{"AWS_ACCESS_KEY_ID", access_key()},
            {"AWS_SECRET_ACCESS_KEY", secret_key()},
            {"AWS_REGION", "us-east-1"},
            {"AWS_ENDPOINT_URL", endpoint()}};
}

S3Server::S3Server(S3ServerOptions options) : m_options(std::move(options)) {
    m_port = free_port();
    std::random_device rd;
    m_dir = std::filesystem::temp_directory_path() / ("ingestd-s3-" + std::to_string(rd()));
    std::filesystem::create_directories(m_dir / "data");
    start();
}

S3Server::~S3Server() {
    kill_hard();
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

void S3Server::start() {
    const std::string port = std::to_string(m_port), data = (m_dir / "data").string();
    std::filesystem::remove(m_dir / "data/ready");
    if (m_options.kind == S3Kind::swift) {
        m_pid = spawn({"/usr/bin/python3", (k_s3_dir / "swift_s3.py").string(), data, port, secret_key()},
                      m_dir / "server.log", {{"SWIFT_S3_PROXY_CLOCK", m_options.proxy_clock}});
    } else {
        // s3rver's listing tokens use DES, which Node 18 keeps in its legacy provider.
        m_pid = spawn({s3rver_bin().string(), "--directory", data, "--address", "127.0.0.1", "--port", port,
                       "--configure-bucket", "uploads", "--silent"},
                      m_dir / "server.log", {{"NODE_OPTIONS", "--openssl-legacy-provider"}});
    }
    wait_ready();
    if (m_options.kind == S3Kind::swift && m_options.proxy_clock.empty()) client("mb uploads");
}

void S3Server::wait_ready() const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < end) {
        if (::waitpid(m_pid, nullptr, WNOHANG) == m_pid) break;
        const bool ready = m_options.kind == S3Kind::swift
                               ? std::filesystem::exists(m_dir / "data/ready")
                               : run_command("curl -s -o /dev/null -w '%{http_code}' " + endpoint() + "/") != "000";
        if (ready) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the poll interval: until it answers
    }
    throw std::runtime_error("the S3 server did not start on port " + std::to_string(m_port) + ":\n" +
                             run_command("tail -c 2000 " + (m_dir / "server.log").string()));
}

void S3Server::kill_hard() {
    if (m_pid <= 0) return;
    ::kill(-m_pid, SIGKILL); // the whole group: Swift's four servers too
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    m_pid = -1;
}

std::string S3Server::client(const std::string& args, int* status, const std::string& input) const {
    std::string command = "AWS_ACCESS_KEY_ID='" + access_key() + "' AWS_SECRET_ACCESS_KEY='" + secret_key() +
                          "' AWS_REGION=us-east-1 AWS_ENDPOINT_URL=" + endpoint() + " /usr/bin/python3 " +
                          (k_s3_dir / "s3_client.py").string() + " " + args;
    if (!input.empty()) {
        const auto file = m_dir / ("input-" + std::to_string(std::random_device{}()));
        std::ofstream(file) << input;
        command += " <" + file.string();
    }
    int rc = -1;
    std::string out = run_command(command + " 2>>" + (m_dir / "client.log").string(), &rc);
    if (status != nullptr)
        *status = rc;
    else if (rc != 0)
        throw std::runtime_error("s3_client.py " + args + " failed:\n" +
                                 run_command("tail -c 1000 " + (m_dir / "client.log").string()));
    return out;
}

void S3Server::put(const std::string& key, const std::string& bytes, const std::string& bucket) const {
    const auto file = m_dir / ("upload-" + std::to_string(std::random_device{}()));
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    client("put " + bucket + " " + file.string() + " '" + key + "'");
    std::filesystem::remove(file);
}

void S3Server::put_file(const std::string& key, const std::filesystem::path& path) const {
    client("put uploads '" + path.string() + "' '" + key + "'");
}

void S3Server::put_files(const std::filesystem::path& dir, const std::string& prefix,
                         const std::vector<std::string>& names) const {
    std::string list;
    for (const auto& n : names) list += n + "\n";
    client("put-files uploads '" + dir.string() + "' '" + prefix + "'", nullptr, list);
}

void S3Server::put_many(const std::vector<std::string>& keys, const std::string& bytes) const {
    const auto file = m_dir / ("upload-" + std::to_string(std::random_device{}()));
    std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    std::string args = "put uploads " + file.string();
    for (const auto& k : keys) args += " '" + k + "'";
    client(args); // one process, one connection
    std::filesystem::remove(file);
}

std::string S3Server::get(const std::string& key, bool* found, const std::string& bucket) const {
    const auto file = m_dir / ("download-" + std::to_string(std::random_device{}()));
    int status = -1;
    client("get " + bucket + " '" + key + "' " + file.string(), &status);
    if (found != nullptr) *found = status == 0;
    if (status != 0 && status != 3) throw std::runtime_error("cannot read " + key + " back from the S3 server");
    std::string body;
    if (status == 0) {
        body = run_command("cat " + file.string());
        std::filesystem::remove(file);
    }
    return body;
}

std::string S3Server::headers(const std::string& key, const std::string& bucket) const {
    int status = -1;
    return client("head " + bucket + " '" + key + "'", &status);
}

} // namespace testsupport

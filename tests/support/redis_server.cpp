#include "tests/support/redis_server.hpp"

#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace testsupport {

int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot bind a loopback port");
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

std::string run_command(const std::string& command, int* status) {
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        throw std::runtime_error("popen failed: " + command);
    }
    std::array<char, 4096> buf{};
    std::size_t n = 0;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
        out.append(buf.data(), n);
    }
    int rc = ::pclose(pipe);
    if (status != nullptr) {
        *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    }
    return out;
}

RedisServer::RedisServer(bool append_only) : RedisServer(RedisOptions{append_only, {}, {}}) {}

RedisServer::RedisServer(RedisOptions options) : m_options(std::move(options)) {
    m_port = free_port();
    std::random_device rd;
    m_dir = std::filesystem::temp_directory_path() / ("ingestd-redis-" + std::to_string(rd()));
    std::filesystem::create_directories(m_dir);
    start();
}

namespace {

// The command line of a server (or a sentinel, which takes its config file first).
std::vector<std::string> server_args(const RedisOptions& o, int port, const std::filesystem::path& dir) {
    std::vector<std::string> args;
    if (o.sentinel_config.empty()) {
        args = {"redis-server",
                "--port",
                std::to_string(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.string(),
                "--save",
                "",
                "--appendonly",
                o.append_only ? "yes" : "no",
                "--logfile",
                "redis.log"};
    } else {
        args = {"redis-sentinel", o.sentinel_config, "--port",     std::to_string(port), "--bind",
                "127.0.0.1",      "--dir",           dir.string(), "--logfile",          "redis.log"};
    }
    args.insert(args.end(), o.extra_args.begin(), o.extra_args.end());
    return args;
}

} // namespace

void RedisServer::start() {
    const std::vector<std::string> args = server_args(m_options, m_port, m_dir);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::execvp(argv[0], argv.data());
        ::_exit(127);
    }
    m_pid = pid;
    for (int i = 0; i < 100; ++i) {
        if (cli("ping") == "PONG") {
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the poll interval: PING until it answers
    }
    throw std::runtime_error("redis-server did not answer PING on port " + std::to_string(m_port));
}

void RedisServer::kill_hard() {
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
        m_pid = -1;
    }
}

RedisServer::~RedisServer() {
    kill_hard();
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
}

std::string RedisServer::cli(const std::string& args) const {
    std::string out = run_command("redis-cli -p " + std::to_string(m_port) + " " + args + " 2>/dev/null");
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
        out.pop_back();
    }
    return out;
}

} // namespace testsupport

#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <sys/types.h>

namespace testsupport {

/// How a RedisServer runs.
struct RedisOptions {
    bool append_only = false;
    std::vector<std::string> extra_args; // after the defaults: TLS settings, --replicaof
    std::string sentinel_config;         // when set: `redis-sentinel` with this config file
};

/// A private `redis-server` (or `redis-sentinel`) on a free loopback port, started in the
/// constructor (which waits for PING) and killed in the destructor. `start()` after
/// `kill_hard()` keeps the port and data dir.
class RedisServer {
public:
    explicit RedisServer(bool append_only = false);
    explicit RedisServer(RedisOptions options);
    ~RedisServer();
    RedisServer(const RedisServer&) = delete;
    RedisServer& operator=(const RedisServer&) = delete;

    int port() const { return m_port; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(m_port) + "/0"; }

    /// Runs `redis-cli -p PORT ARGS...` and returns its stdout, trailing newline removed.
    std::string cli(const std::string& args) const;

    void kill_hard();
    void start();

private:
    int m_port = 0;
    pid_t m_pid = -1;
    RedisOptions m_options;
    std::filesystem::path m_dir;
};

/// A free TCP port on 127.0.0.1.
int free_port();

/// Runs a shell command, returns its stdout; `status` gets the exit code.
std::string run_command(const std::string& command, int* status = nullptr);

} // namespace testsupport

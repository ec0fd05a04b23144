#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include <sys/types.h>

namespace testsupport {

/// An `ingestd worker` child process with extra environment variables; SIGKILLed in the
/// destructor unless it already exited. Output goes to `log`.
class WorkerProcess {
public:
    WorkerProcess(const std::map<std::string, std::string>& env, const std::filesystem::path& log);
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    pid_t pid() const { return m_pid; }
    void signal(int sig);
    /// Waits for exit up to `timeout`; returns the exit code, 128+signal, or -1 on timeout.
    int wait(std::chrono::milliseconds timeout);
    bool alive();

private:
    pid_t m_pid = -1;
    int m_status = -1;
};

/// The ingestd executable under test.
std::string ingestd_binary();

/// Runs ingestd with `args` (a shell-quoted string) and extra environment; returns stdout.
std::string run_ingestd(const std::string& args, const std::map<std::string, std::string>& env, int* status = nullptr);

} // namespace testsupport

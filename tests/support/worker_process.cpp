#include "tests/support/worker_process.hpp"

#include "tests/support/redis_server.hpp"

#include <csignal>
#include <cstdlib>
#include <thread>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace testsupport {

std::string ingestd_binary() {
#ifdef INGESTD_BINARY
    return INGESTD_BINARY;
#else
    return "ingestd";
#endif
}

WorkerProcess::WorkerProcess(const std::map<std::string, std::string>& env, const std::filesystem::path& log) {
    pid_t pid = ::fork();
    if (pid == 0) {
        for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
        if (!env.count("INGEST_HTTP_ADDR")) ::setenv("INGEST_HTTP_ADDR", "off", 1);
        int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            ::dup2(fd, 1);
            ::dup2(fd, 2);
        }
        std::string bin = ingestd_binary();
        ::execl(bin.c_str(), bin.c_str(), "worker", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    m_pid = pid;
}

WorkerProcess::~WorkerProcess() {
    if (m_pid > 0 && m_status < 0) {
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
}

void WorkerProcess::signal(int sig) {
    if (m_pid > 0 && m_status < 0) ::kill(m_pid, sig);
}

bool WorkerProcess::alive() {
    if (m_status >= 0) return false;
    int st = 0;
    pid_t r = ::waitpid(m_pid, &st, WNOHANG);
    if (r == m_pid) {
        m_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        return false;
    }
    return true;
}

int WorkerProcess::wait(std::chrono::milliseconds timeout) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (alive()) {
        if (std::chrono::steady_clock::now() >= end) return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the poll interval
    }
    return m_status;
}

std::string run_ingestd(const std::string& args, const std::map<std::string, std::string>& env, int* status) {
    std::string cmd;
    for (const auto& [k, v] : env) cmd += k + "='" + v + "' ";
    cmd += ingestd_binary() + " " + args;
    return run_command(cmd, status);
}

} // namespace testsupport

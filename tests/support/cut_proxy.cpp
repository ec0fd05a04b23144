#include "tests/support/cut_proxy.hpp"

#include "tests/support/redis_server.hpp"

#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace testsupport {

CutProxy::CutProxy(int upstream, const Faults& faults) : m_port(free_port()) {
    m_log = std::filesystem::temp_directory_path() / ("ingestd-cut-" + std::to_string(m_port) + ".log");
    const std::string script = std::string(INGESTD_SOURCE_DIR) + "/tests/s3/cut_proxy.py";
    const std::string listen = std::to_string(m_port), up = std::to_string(upstream),
                      cut = std::to_string(faults.cut_after > 0 ? faults.cut_after : std::size_t{1} << 62),
                      slow = std::to_string(faults.slow_down), log_path = m_log.string();
    m_pid = ::fork();
    if (m_pid == 0) {
        ::execlp("python3", "python3", script.c_str(), "--listen", listen.c_str(), "--upstream", up.c_str(),
                 "--cut-after", cut.c_str(), "--on-cut", faults.on_cut.c_str(), "--slow-down", slow.c_str(), "--log",
                 log_path.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    for (int i = 0; i < 200 && log().find("LISTENING") == std::string::npos; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25)); // polls until the proxy listens
    }
}

CutProxy::~CutProxy() {
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
    std::filesystem::remove(m_log);
}

std::string CutProxy::log() const {
    std::ifstream in(m_log);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

} // namespace testsupport

#include "tests/support/process_info.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace testsupport {

long long cpu_ticks(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The command name (field 2) may hold spaces: count fields from its closing parenthesis.
    const auto close = all.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream rest(all.substr(close + 2));
    std::string f;
    long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> f; ++i) {
        if (i == 14) utime = std::stoll(f);
        if (i == 15) stime = std::stoll(f);
    }
    return utime + stime;
}

std::vector<pid_t> child_pids(pid_t pid) {
    std::vector<pid_t> kids;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    std::error_code ec;
    // Helpers are started from job threads: each thread lists the children it forked.
    for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
        std::ifstream in(task.path() / "children");
        for (pid_t k = 0; in >> k;) kids.push_back(k);
    }
    return kids;
}

long status_kib(pid_t pid, const std::string& key) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(key, 0) == 0) return std::stol(line.substr(key.size()));
    }
    return -1;
}

HelperPeak::HelperPeak(pid_t worker)
    : m_thread([this, worker] {
          while (!m_stop) {
              for (pid_t k : child_pids(worker)) m_peak = std::max(m_peak.load(), status_kib(k, "VmHWM:"));
              std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the sampling period
          }
      }) {}

long HelperPeak::stop() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
    return m_peak;
}

} // namespace testsupport

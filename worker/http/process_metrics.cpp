#include "worker/http/process_metrics.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

namespace worker {
namespace {

void sample(std::ostream& o, const char* name, const char* type, const char* help, double value) {
    o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n"
      << name << " " << std::fixed << value << std::defaultfloat << "\n";
}

// The fields of /proc/self/stat after the command name (field 3 onwards), empty on failure.
std::vector<std::string> stat_fields() {
    std::ifstream in("/proc/self/stat");
    std::string line;
    std::getline(in, line);
    const auto close = line.rfind(')'); // the command name may hold spaces and parentheses
    std::vector<std::string> fields;
    if (close == std::string::npos) return fields;
    std::istringstream rest(line.substr(close + 2));
    for (std::string f; rest >> f;) fields.push_back(f);
    return fields;
}

// Seconds since the epoch at boot, from /proc/stat's btime; 0 when unknown.
double boot_time() {
    std::ifstream in("/proc/stat");
    for (std::string key; in >> key;) {
        if (key == "btime") {
            double t = 0;
            in >> t;
            return t;
        }
        in.ignore(1 << 20, '\n');
    }
    return 0;
}

std::size_t open_fds() {
    std::error_code ec;
    std::size_t n = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        ++n;
    }
    return n > 0 ? n - 1 : 0; // the iterator's own descriptor
}

} // namespace

void render_process_metrics(std::ostream& o) {
    const std::vector<std::string> f = stat_fields();
    const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
    // After the name: state is field 3, so utime (14) is index 11, stime 12, starttime 19,
    // vsize 20, rss 21.
    if (f.size() > 21 && ticks > 0) {
        sample(o, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
               (std::stod(f[11]) + std::stod(f[12])) / ticks);
        sample(o, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", std::stod(f[21]) * page);
        sample(o, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", std::stod(f[20]));
        if (const double boot = boot_time(); boot > 0) {
            sample(o, "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
                   boot + std::stod(f[19]) / ticks);
        }
    }
    sample(o, "process_open_fds", "gauge", "Number of open file descriptors.", static_cast<double>(open_fds()));
    struct rlimit lim {};
    if (::getrlimit(RLIMIT_NOFILE, &lim) == 0) {
        sample(o, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
               static_cast<double>(lim.rlim_cur));
    }
}

} // namespace worker

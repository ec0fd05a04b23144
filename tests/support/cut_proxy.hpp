#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include <sys/types.h>

namespace testsupport {

/// The loopback proxy of tests/s3/cut_proxy.py between an object-store client and s3rver,
/// started in the constructor (which waits until it listens) and killed in the destructor.
class CutProxy {
public:
    struct Faults {
        std::size_t cut_after = 0; ///< cut the first whole-object GET's reply after this many bytes (0: never)
        std::string on_cut;        ///< a shell command run at the cut
        int slow_down = 0;         ///< answer the first this many requests 503 SlowDown (negative: all)
    };
    CutProxy(int upstream, const Faults& faults);
    ~CutProxy();
    CutProxy(const CutProxy&) = delete;
    CutProxy& operator=(const CutProxy&) = delete;

    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    /// What the proxy logged: request lines, "CUT", "503 <request line>".
    std::string log() const;

private:
    int m_port;
    pid_t m_pid = -1;
    std::filesystem::path m_log;
};

} // namespace testsupport

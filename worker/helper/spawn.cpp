#include "worker/helper/spawn.hpp"

#include "worker/helper/output_pump.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

namespace worker {
namespace {

std::vector<std::string> helper_arguments(const HelperSettings& settings, const std::filesystem::path& scratch,
                                          int slot) {
    std::vector<std::string> args = {settings.binary,    "helper",
                                     "--channel",        "3",
                                     "--parent",         std::to_string(::getpid()),
                                     "--scratch",        scratch.string(),
                                     "--memory-mb",      std::to_string(settings.memory_mb),
                                     "--max-file-bytes", std::to_string(settings.max_file_bytes)};
    if (settings.warm_parsers) args.emplace_back("--warm");
    if (!settings.decode_lock.empty()) args.insert(args.end(), {"--decode-lock", settings.decode_lock});
    if (!settings.thread_share_path.empty() && slot >= 0) {
        args.insert(args.end(), {"--thread-share", settings.thread_share_path, "--slot", std::to_string(slot)});
    }
    if (!settings.preload_langs.empty()) args.insert(args.end(), {"--preload", settings.preload_langs});
    return args;
}

// A clean environment: nothing of the worker's (Redis URL, credentials) but these.
std::vector<std::string> helper_environment(const std::filesystem::path& scratch) {
    std::vector<std::string> env = {"OMP_THREAD_LIMIT=1",
                                    "LANG=C.UTF-8",
                                    "LC_ALL=C.UTF-8",
                                    "PATH=/usr/local/bin:/usr/bin:/bin",
                                    "TMPDIR=" + scratch.string(),
                                    "HOME=" + scratch.string()};
    for (const char* keep : {"TESSDATA_PREFIX", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
        if (const char* v = std::getenv(keep)) env.push_back(std::string(keep) + "=" + v);
    }
    return env;
}

// The argv/envp form: pointers into `strings`, which must outlive them.
std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// posix_spawn's two attribute objects, destroyed on every path.
struct SpawnAttributes {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;

    SpawnAttributes(int channel, int output) {
        ::posix_spawn_file_actions_init(&actions);
        ::posix_spawnattr_init(&attr);
        ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        // stdout and stderr to the pipe the worker reads: never the worker's own streams.
        ::posix_spawn_file_actions_adddup2(&actions, output, 1);
        ::posix_spawn_file_actions_adddup2(&actions, output, 2);
        ::posix_spawn_file_actions_adddup2(&actions, channel, 3);
        ::posix_spawn_file_actions_addclosefrom_np(&actions, 4);
        sigset_t none, defaults;
        sigemptyset(&none);
        sigemptyset(&defaults);
        for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ}) {
            sigaddset(&defaults, s);
        }
        ::posix_spawnattr_setsigmask(&attr, &none);
        ::posix_spawnattr_setsigdefault(&attr, &defaults);
        ::posix_spawnattr_setpgroup(&attr, 0); // its own group: a terminal's Ctrl-C goes to the worker only
        ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    }
    ~SpawnAttributes() {
        ::posix_spawn_file_actions_destroy(&actions);
        ::posix_spawnattr_destroy(&attr);
    }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
};

} // namespace

SpawnedHelper spawn_helper(const HelperSettings& settings, const std::filesystem::path& scratch, int slot) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    }
    core::Fd mine(sv[0]);
    const core::Fd original(sv[1]);
    // Above the standard descriptors, so that dup2 onto 3 is a real copy without CLOEXEC.
    const core::Fd theirs(::fcntl(original.get(), F_DUPFD_CLOEXEC, 10));
    if (!theirs) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));

    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    core::Fd output_read(p[0]);
    const core::Fd output_write_original(p[1]);
    const core::Fd output_write(::fcntl(output_write_original.get(), F_DUPFD_CLOEXEC, 10));
    if (!output_write) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));

    std::vector<std::string> args = helper_arguments(settings, scratch, slot);
    std::vector<std::string> env = helper_environment(scratch);
    const std::vector<char*> argv = c_strings(args);
    const std::vector<char*> envp = c_strings(env);
    SpawnAttributes spawn(theirs.get(), output_write.get());
    SpawnedHelper out;
    const int rc =
        ::posix_spawn(&out.pid, settings.binary.c_str(), &spawn.actions, &spawn.attr, argv.data(), envp.data());
    if (rc != 0)
        throw std::runtime_error("cannot start the parser helper " + settings.binary + ": " + std::strerror(rc));
    ::fcntl(mine.get(), F_SETFL, ::fcntl(mine.get(), F_GETFL) | O_NONBLOCK);
    out.channel = std::move(mine);
    pump_helper_output(std::move(output_read), out.pid);
    return out;
}

} // namespace worker

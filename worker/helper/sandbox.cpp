#include "worker/helper/sandbox.hpp"

#include "core/fd.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <system_error>

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace worker::sandbox {
namespace {

// The installed <linux/landlock.h> predates ABI 3; these are the later kernels' values.
constexpr std::uint64_t k_fs_truncate = 1ULL << 14;  // ABI 3
constexpr std::uint64_t k_fs_ioctl_dev = 1ULL << 15; // ABI 5
constexpr std::uint64_t k_net_bind_tcp = 1ULL << 0;  // ABI 4
constexpr std::uint64_t k_net_connect_tcp = 1ULL << 1;
constexpr std::uint64_t k_scope_abstract_unix = 1ULL << 0; // ABI 6
constexpr std::uint64_t k_scope_signal = 1ULL << 1;

struct RulesetAttr {
    std::uint64_t handled_access_fs;
    std::uint64_t handled_access_net;
    std::uint64_t scoped;
};

std::uint64_t fs_rights(int abi) {
    std::uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; // ABI 1: bits 0-12
    if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) all |= k_fs_truncate;
    if (abi >= 5) all |= k_fs_ioctl_dev;
    return all;
}

constexpr std::uint64_t k_read_rights =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr std::uint64_t k_file_rights = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                                        LANDLOCK_ACCESS_FS_WRITE_FILE | k_fs_truncate | k_fs_ioctl_dev;

// Allows `rights` beneath `path` (or on it, when it is a file). Missing paths are skipped.
void allow(int ruleset, const std::filesystem::path& path, std::uint64_t rights, std::uint64_t handled,
           Report& report) {
    const core::Fd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (!fd) return;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) rights &= k_file_rights;
    landlock_path_beneath_attr attr{};
    attr.allowed_access = rights & handled;
    attr.parent_fd = fd.get();
    if (::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0) != 0) {
        report.warnings.push_back("landlock rule for " + path.string() + ": " + std::strerror(errno));
    }
}

void apply_landlock(const std::filesystem::path& writable, const std::vector<std::filesystem::path>& readable,
                    Report& report) {
    long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        report.warnings.push_back(std::string("Landlock is unavailable (") + std::strerror(errno) +
                                  "): the helper can read and write whatever its user can");
        return;
    }
    report.landlock_abi = static_cast<int>(abi);
    RulesetAttr attr{};
    attr.handled_access_fs = fs_rights(report.landlock_abi);
    std::size_t size = sizeof(std::uint64_t);
    if (abi >= 4) {
        attr.handled_access_net = k_net_bind_tcp | k_net_connect_tcp; // no port allowed
        size = 2 * sizeof(std::uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = k_scope_abstract_unix | k_scope_signal;
        size = sizeof attr;
    }
    const core::Fd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
    if (!ruleset) {
        report.warnings.push_back(std::string("Landlock ruleset refused: ") + std::strerror(errno));
        return;
    }
    for (const auto& p : readable) allow(ruleset.get(), p, k_read_rights, attr.handled_access_fs, report);
    allow(ruleset.get(), "/dev/null", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE,
          attr.handled_access_fs, report);
    allow(ruleset.get(), writable, attr.handled_access_fs, attr.handled_access_fs, report);
    if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) {
        report.warnings.push_back(std::string("Landlock restrict_self failed: ") + std::strerror(errno));
        return;
    }
    report.landlock = true;
}

void drop_capabilities() {
    ::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    for (int cap = 0; cap <= 63; ++cap) {
        if (::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break;
    }
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    ::syscall(SYS_capset, &header, data); // best effort: an unprivileged user has none anyway
}

struct SeccompDeleter {
    void operator()(void* ctx) const { seccomp_release(ctx); }
};

void deny(scmp_filter_ctx ctx, int syscall, int err = EPERM) {
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), syscall, 0) != 0) {
        throw std::runtime_error("seccomp rule for syscall " + std::to_string(syscall));
    }
}

// No network and no new channels: the helper talks only over the socket it inherited.
void deny_network(scmp_filter_ctx ctx) {
    for (int s : {SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen),
                  SCMP_SYS(accept), SCMP_SYS(accept4)}) {
        deny(ctx, s);
    }
}

// Nothing that reaches other processes, the kernel or the mount table.
void deny_system(scmp_filter_ctx ctx) {
#ifndef INGESTD_SANITIZE
    // (Sanitizer builds keep ptrace: LeakSanitizer stops the process's own threads with it
    // for its at-exit check, and dies with a fatal error when it is denied.)
    deny(ctx, SCMP_SYS(ptrace));
#endif
    for (int s : {SCMP_SYS(process_vm_readv),
                  SCMP_SYS(process_vm_writev),
                  SCMP_SYS(mount),
                  SCMP_SYS(umount2),
                  SCMP_SYS(pivot_root),
                  SCMP_SYS(chroot),
                  SCMP_SYS(unshare),
                  SCMP_SYS(setns),
                  SCMP_SYS(kexec_load),
                  SCMP_SYS(kexec_file_load),
                  SCMP_SYS(init_module),
                  SCMP_SYS(finit_module),
                  SCMP_SYS(delete_module),
                  SCMP_SYS(bpf),
                  SCMP_SYS(perf_event_open),
                  SCMP_SYS(keyctl),
                  SCMP_SYS(add_key),
                  SCMP_SYS(request_key),
                  SCMP_SYS(userfaultfd),
                  SCMP_SYS(reboot),
                  SCMP_SYS(swapon),
                  SCMP_SYS(swapoff),
                  SCMP_SYS(settimeofday),
                  SCMP_SYS(clock_settime),
                  SCMP_SYS(clock_adjtime),
                  SCMP_SYS(adjtimex),
                  SCMP_SYS(acct),
                  SCMP_SYS(quotactl),
                  SCMP_SYS(name_to_handle_at),
                  SCMP_SYS(open_by_handle_at),
                  SCMP_SYS(io_uring_setup),
                  SCMP_SYS(io_uring_enter),
                  SCMP_SYS(io_uring_register),
                  SCMP_SYS(fanotify_init),
                  SCMP_SYS(syslog),
                  SCMP_SYS(iopl),
                  SCMP_SYS(ioperm),
                  SCMP_SYS(setrlimit),
                  SCMP_SYS(chmod),
                  SCMP_SYS(fchmod),
                  SCMP_SYS(fchmodat),
                  SCMP_SYS(chown),
                  SCMP_SYS(fchown),
                  SCMP_SYS(lchown),
                  SCMP_SYS(fchownat),
                  SCMP_SYS(setuid),
                  SCMP_SYS(setgid),
                  SCMP_SYS(setreuid),
                  SCMP_SYS(setregid),
                  SCMP_SYS(setresuid),
                  SCMP_SYS(setresgid),
                  SCMP_SYS(setgroups),
                  SCMP_SYS(setfsuid),
                  SCMP_SYS(setfsgid),
                  SCMP_SYS(capset),
                  SCMP_SYS(pidfd_open),
                  SCMP_SYS(pidfd_send_signal),
                  SCMP_SYS(pidfd_getfd),
                  SCMP_SYS(tkill),
                  SCMP_SYS(mknod),
                  SCMP_SYS(mknodat)}) {
        deny(ctx, s);
    }
}

void restrict_limits_and_signals(scmp_filter_ctx ctx) {
    // Limits only go down.
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_NE, 0)) != 0) {
        throw std::runtime_error("seccomp rule for prlimit64");
    }
    // Signals only to itself (abort() and raise() use tgkill on its own pid).
    const auto self = static_cast<scmp_datum_t>(::getpid());
    for (int s : {SCMP_SYS(kill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo)}) {
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), s, 1, SCMP_A0(SCMP_CMP_NE, self)) != 0) {
            throw std::runtime_error("seccomp rule for signals");
        }
    }
}

void deny_processes([[maybe_unused]] scmp_filter_ctx ctx) {
#ifndef INGESTD_SANITIZE
    // No programs and no processes; threads are fine. (Sanitizer builds spawn the
    // symbolizer on a report, so they keep exec and fork.) clone3 hides its flags in
    // memory: ENOSYS makes glibc fall back to clone, whose flags the filter can see.
    for (int s : {SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork)}) deny(ctx, s);
    deny(ctx, SCMP_SYS(clone3), ENOSYS);
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)) != 0) {
        throw std::runtime_error("seccomp rule for clone");
    }
#endif
}

void apply_seccomp() {
    std::unique_ptr<void, SeccompDeleter> holder(seccomp_init(SCMP_ACT_ALLOW));
    scmp_filter_ctx ctx = holder.get();
    if (ctx == nullptr) throw std::runtime_error("seccomp_init failed");
    // Every thread, including any a library started already.
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    deny_network(ctx);
    deny_system(ctx);
    restrict_limits_and_signals(ctx);
    deny_processes(ctx);
    if (int rc = seccomp_load(ctx); rc != 0) {
        throw std::runtime_error(std::string("seccomp_load failed: ") + std::strerror(-rc));
    }
}

} // namespace

void apply_limits(const Limits& limits) {
    auto set = [](int resource, rlim_t value, const char* name) {
        rlimit r{value, value};
        rlimit old{};
        if (::getrlimit(resource, &old) == 0 && old.rlim_max != RLIM_INFINITY && old.rlim_max < value) {
            r.rlim_cur = r.rlim_max = old.rlim_max; // already lower: keep it
        }
        if (::setrlimit(resource, &r) != 0) {
            throw std::system_error(errno, std::generic_category(), std::string("setrlimit ") + name);
        }
    };
    set(RLIMIT_CORE, 0, "RLIMIT_CORE");
    if (limits.data_bytes > 0) set(RLIMIT_DATA, limits.data_bytes, "RLIMIT_DATA");
    if (limits.file_bytes > 0) set(RLIMIT_FSIZE, limits.file_bytes, "RLIMIT_FSIZE");
    if (limits.open_files > 0) set(RLIMIT_NOFILE, limits.open_files, "RLIMIT_NOFILE");
}

bool set_cpu_budget(int pid, int budget_s) {
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat, after the ")" of the name.
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = stat.rfind(')');
    if (close == std::string::npos) return false;
    unsigned long long utime = 0, stime = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                    &stime) != 2) {
        return false;
    }
    const long ticks = ::sysconf(_SC_CLK_TCK);
    const rlim_t used = (utime + stime) / static_cast<unsigned long long>(ticks > 0 ? ticks : 100);
    // Only the soft limit (SIGXCPU): the hard one stays where it is, so a later job can
    // raise the soft one again without privileges; the wall-clock kill is the real bound.
    rlimit r{};
    if (::prlimit(pid, RLIMIT_CPU, nullptr, &r) != 0) return false;
    r.rlim_cur = std::min<rlim_t>(used + static_cast<rlim_t>(budget_s), r.rlim_max);
    return ::prlimit(pid, RLIMIT_CPU, &r, nullptr) == 0;
}

Report confine(const std::filesystem::path& writable, const std::vector<std::filesystem::path>& readable) {
    Report report;
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        throw std::runtime_error(std::string("PR_SET_NO_NEW_PRIVS failed: ") + std::strerror(errno));
    }
    drop_capabilities();
    apply_landlock(writable, readable, report);
    apply_seccomp();
    report.seccomp = true;
    return report;
}

} // namespace worker::sandbox

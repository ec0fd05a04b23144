#include "worker/helper/pool.hpp"

#include "extractors/sniff/content_type.hpp"
#include "worker/config/log.hpp"
#include "worker/helper/channel.hpp"
#include "worker/helper/process/helper.hpp"
#include "worker/helper/sandbox.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
namespace ch = helper_channel;
using namespace std::chrono_literals;

constexpr std::size_t k_max_webp = 8u << 20;
constexpr std::size_t k_max_field = 64u << 10;

std::uint64_t data_limit_bytes(const HelperSettings& s) {
#ifdef INGESTD_SANITIZE
    (void)s;
    return 0;
#else
    return (s.memory_mb + k_helper_base_mb) << 20;
#endif
}

// A "VmRSS:"-style line of /proc/<pid>/status, in bytes; 0 when unreadable.
std::uint64_t proc_status_bytes(pid_t pid, const char* key) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(in, line)) {
        if (line.compare(0, n, key) == 0) return std::strtoull(line.c_str() + n, nullptr, 10) * 1024;
    }
    return 0;
}

std::string signal_name(int sig) {
    const char* abbrev = ::sigabbrev_np(sig);
    return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

bool valid_utf8(const std::string& s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const auto* end = p + s.size();
    while (p < end) {
        unsigned char c = *p;
        int len;
        std::uint32_t cp;
        if (c < 0x80) {
            ++p;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (end - p < len) return false;
        for (int i = 1; i < len; ++i) {
            if ((p[i] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        p += len;
    }
    return true;
}

bool is_webp(const std::string& b) {
    if (b.size() < 20 || b.size() > k_max_webp) return false;
    if (b.compare(0, 4, "RIFF") != 0 || b.compare(8, 4, "WEBP") != 0) return false;
    std::uint32_t riff = 0;
    for (int i = 3; i >= 0; --i) riff = (riff << 8) | static_cast<unsigned char>(b[4 + i]);
    return static_cast<std::uint64_t>(riff) + 8 == b.size();
}

const std::string* find_field(const std::vector<std::pair<std::string, std::string>>& fields, const std::string& k) {
    for (const auto& kv : fields) {
        if (kv.first == k) return &kv.second;
    }
    return nullptr;
}

struct Death {
    core::ErrorCode code = core::ErrorCode::crashed;
    std::string message;
    bool counted = false; // a parser crash for the metrics
};

} // namespace

std::string helper_binary() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return "ingestd-helper";
    return (self.parent_path() / "ingestd-helper").string();
}

HelperSettings HelperSettings::from(const Config& config) {
    HelperSettings s;
    s.memory_mb = static_cast<std::uint64_t>(config.job_memory_mb);
    s.preload_langs = config.ocr_mode == "off" ? "" : config.ocr_langs; // INGEST_OCR_MODE as configured
    s.warm_parsers = true; // a worker's helpers live for thousands of files
    return s;
}

// ---- pool --------------------------------------------------------------------------------

HelperPool::HelperPool(HelperSettings settings) : m_settings(std::move(settings)) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ingestd-helpers-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
        throw std::runtime_error(std::string("cannot create the helpers' scratch folder: ") + std::strerror(errno));
    }
    m_root = tmpl;
}

HelperPool::~HelperPool() {
    std::error_code ec;
    std::filesystem::remove_all(m_root, ec);
}

std::unique_ptr<Helper> HelperPool::make() {
    const int slot = m_next++;
    auto h = std::make_unique<Helper>(m_settings, m_root / std::to_string(slot), slot);
    return h;
}

// ---- one helper ----------------------------------------------------------------------------

Helper::Helper(const HelperSettings& settings, std::filesystem::path scratch, int slot)
    : m_settings(settings), m_scratch(std::move(scratch)), m_slot(slot) {
    try {
        start();
    } catch (const std::exception& e) {
        // The first job tries again (and fails as a job, not as the worker).
        log::error(std::string("parser helper start failed: ") + e.what(), {{"slot", std::to_string(slot)}});
    }
}

Helper::~Helper() {
    stop();
}

bool Helper::alive() {
    if (m_pid <= 0) return false;
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
        log::warn("parser helper died while idle; starting another",
                  {{"pid", std::to_string(m_pid)},
                   {"how", WIFSIGNALED(status) ? signal_name(WTERMSIG(status))
                                               : "exit " + std::to_string(WEXITSTATUS(status))}});
        m_pid = -1;
        m_sock.reset();
        m_ready = false;
        return false;
    }
    return true;
}

void Helper::stop() {
    m_sock.reset(); // a helper between jobs exits on EOF; SIGKILL covers one that does not
    if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    m_pid = -1;
    m_jobs = 0;
    m_ready = false;
}

void Helper::start() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(m_scratch, ec);
    std::filesystem::create_directories(m_scratch);

    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    }
    core::Fd mine(sv[0]);
    // Above the standard descriptors, so that dup2 onto 3 is a real copy without CLOEXEC.
    core::Fd theirs(::fcntl(sv[1], F_DUPFD_CLOEXEC, 10));
    ::close(sv[1]);
    if (!theirs) throw std::runtime_error(std::string("fcntl: ") + std::strerror(errno));

    std::vector<std::string> args = {m_settings.binary, "helper",
                                     "--channel",       "3",
                                     "--parent",        std::to_string(::getpid()),
                                     "--scratch",       m_scratch.string(),
                                     "--memory-mb",     std::to_string(m_settings.memory_mb)};
    if (m_settings.warm_parsers) args.emplace_back("--warm");
    if (!m_settings.preload_langs.empty()) {
        args.insert(args.end(), {"--preload", m_settings.preload_langs});
    }
    // A clean environment: nothing of the worker's (Redis URL, credentials) but these.
    std::vector<std::string> env = {"OMP_THREAD_LIMIT=1",
                                    "LANG=C.UTF-8",
                                    "LC_ALL=C.UTF-8",
                                    "PATH=/usr/local/bin:/usr/bin:/bin",
                                    "TMPDIR=" + m_scratch.string(),
                                    "HOME=" + m_scratch.string()};
    for (const char* keep : {"TESSDATA_PREFIX", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
        if (const char* v = std::getenv(keep)) env.push_back(std::string(keep) + "=" + v);
    }
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    ::posix_spawn_file_actions_init(&fa);
    ::posix_spawnattr_init(&attr);
    ::posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&fa, 2, 1); // never the worker's stdout (JSON output)
    ::posix_spawn_file_actions_adddup2(&fa, theirs.get(), 3);
    ::posix_spawn_file_actions_addclosefrom_np(&fa, 4);
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
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, m_settings.binary.c_str(), &fa, &attr, argv.data(), envp.data());
    ::posix_spawn_file_actions_destroy(&fa);
    ::posix_spawnattr_destroy(&attr);
    theirs.reset();
    if (rc != 0) {
        throw std::runtime_error("cannot start the parser helper " + m_settings.binary + ": " + std::strerror(rc));
    }
    m_pid = pid;
    m_sock = std::move(mine);
    ::fcntl(m_sock.get(), F_SETFL, ::fcntl(m_sock.get(), F_GETFL) | O_NONBLOCK);
}

void Helper::start_quietly() {
    try {
        start();
    } catch (const std::exception& e) {
        log::error(std::string("parser helper start failed: ") + e.what(), {{"slot", std::to_string(m_slot)}});
    }
}

bool Helper::warm_up() {
    try {
        if (!alive()) start();
        await_ready();
        return true;
    } catch (const std::exception& e) {
        log::error(std::string("parser helper start failed: ") + e.what(), {{"slot", std::to_string(m_slot)}});
        return false;
    }
}

void Helper::await_ready() {
    if (m_ready) return;
    // "ready" comes after start-up, sandbox and engine preload.
    ch::Reader reader;
    const auto until = Clock::now() + m_settings.start_timeout;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
        if (left <= 0ms) break;
        pollfd p{m_sock.get(), POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) <= 0) continue;
        auto st = reader.feed(m_sock.get());
        if (auto m = reader.next(); m && m->type == ch::Type::ready) {
            if (!m->json.value("landlock", false)) {
                static std::atomic<bool> warned{false};
                if (!warned.exchange(true)) {
                    log::warn("Landlock is unavailable: parser helpers run with seccomp and limits only");
                }
            }
            log::debug("parser helper ready", {{"pid", std::to_string(m_pid)}, {"slot", std::to_string(m_slot)}});
            m_ready = true;
            return;
        }
        if (st != ch::Reader::Status::more) break;
    }
    stop();
    throw std::runtime_error("a parser helper did not start (see its messages above)");
}

PipelineResult Helper::analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                               const PipelineOptions& options) {
    // A helper that dies while starting (or cannot start) gets one more chance; then the
    // job's parser counts as crashed rather than leaving the event to bounce.
    for (int attempt = 0;; ++attempt) {
        try {
            if (!alive()) start();
            await_ready();
            break;
        } catch (const std::exception& e) {
            log::warn(std::string("parser helper start failed: ") + e.what(), {{"file_id", spec.file_id}});
            if (attempt == 1) {
                if (m_settings.on_crash) m_settings.on_crash();
                return combine_results({}, spec, hash, size, "",
                                       core::Failure{core::ErrorCode::crashed, "The parser process could not start."});
            }
        }
    }
    const auto now = Clock::now();
    const bool bounded = options.deadline != Clock::time_point::max();
    const auto remaining =
        bounded ? std::max(0ms, std::chrono::duration_cast<std::chrono::milliseconds>(options.deadline - now))
                : std::chrono::milliseconds(24LL * 3600 * 1000);
    const auto hard = bounded ? options.deadline + m_settings.kill_grace : Clock::time_point::max();
    nlohmann::json req = {{"spec", ch::to_json(spec)},
                          {"options", ch::to_json(options)},
                          {"remaining_ms", remaining.count()},
                          {"hash", hash}};
    // CPU time as a backstop behind the wall clock: twice the job's budget.
    sandbox::set_cpu_budget(m_pid, static_cast<int>(std::min<long long>(remaining.count() / 500 + 5, 1 << 30)));
    if (!ch::send(m_sock.get(), ch::Type::request, req, {}, fd)) {
        // It died between jobs without us noticing yet: one fresh helper, one more try.
        try {
            start();
            await_ready();
        } catch (...) {
            stop();
            throw;
        }
        sandbox::set_cpu_budget(m_pid, static_cast<int>(std::min<long long>(remaining.count() / 500 + 5, 1 << 30)));
        if (!ch::send(m_sock.get(), ch::Type::request, req, {}, fd)) {
            stop();
            throw std::runtime_error("cannot send a job to a parser helper");
        }
    }

    std::vector<PipelineResult> parts;
    std::string content_type;
    std::uint64_t peak_data = 0;
    bool finished = false, killed_for_time = false;
    std::string invalid;
    ch::Reader reader;
    for (;;) {
        const auto t = Clock::now();
        if (t >= hard) {
            ::kill(m_pid, SIGKILL);
            killed_for_time = true;
            break;
        }
        const auto wait =
            std::min<long long>(100, std::chrono::duration_cast<std::chrono::milliseconds>(hard - t).count() + 1);
        pollfd p{m_sock.get(), POLLIN, 0};
        int n = ::poll(&p, 1, static_cast<int>(wait));
        peak_data = std::max(peak_data, proc_status_bytes(m_pid, "VmData:"));
        if (n <= 0) continue;
        auto st = reader.feed(m_sock.get());
        while (auto m = reader.next()) {
            if (m->type == ch::Type::typed) {
                content_type = m->json.value("content_type", "");
                if (content_type.size() > 255 || !valid_utf8(content_type)) invalid = "a bad content type";
            } else if (m->type == ch::Type::partial || m->type == ch::Type::result) {
                try {
                    PipelineResult r = ch::result_from_json(m->json, m->blob);
                    if (auto why = validate_result(r, spec, hash, size, options); !why.empty()) {
                        invalid = why;
                    } else {
                        parts.push_back(std::move(r));
                        finished = m->type == ch::Type::result;
                    }
                } catch (const std::exception& e) {
                    invalid = e.what();
                }
            } else {
                invalid = "an unexpected message";
            }
            if (finished || !invalid.empty()) break;
        }
        if (finished || !invalid.empty()) break;
        if (st == ch::Reader::Status::broken) {
            invalid = "a malformed message";
            break;
        }
        if (st == ch::Reader::Status::eof) break; // it died: find out how below
    }

    if (finished) {
        PipelineResult r = combine_results(parts, spec, hash, size, content_type, std::nullopt);
        const bool complete = (!spec.step_text || find_field(r.fields, "extraction_status")) &&
                              (!spec.step_thumbnails || find_field(r.fields, "thumbnail_status"));
        if (complete) {
            ++m_jobs;
            const auto rss = proc_status_bytes(m_pid, "VmRSS:");
            if (m_jobs >= m_settings.max_jobs || rss > m_settings.rss_mark_bytes) {
                log::info("recycling a parser helper", {{"pid", std::to_string(m_pid)},
                                                        {"jobs", std::to_string(m_jobs)},
                                                        {"rss_bytes", std::to_string(rss)}});
                stop();
                start_quietly();
            }
            return r;
        }
        invalid = "a result without every step";
    }

    // The helper is dead, broken or out of time: make sure it is gone and learn how it ended.
    Death death;
    if (!invalid.empty()) ::kill(m_pid, SIGKILL);
    int status = 0;
    rusage ru{};
    pid_t got;
    const auto reap_until = Clock::now() + 2s;
    while ((got = ::wait4(m_pid, &status, WNOHANG, &ru)) == 0 && Clock::now() < reap_until) {
        std::this_thread::sleep_for(5ms);
    }
    if (got == 0) {
        ::kill(m_pid, SIGKILL); // closed its socket but kept running
        while ((got = ::wait4(m_pid, &status, 0, &ru)) < 0 && errno == EINTR) {
        }
    }
    const pid_t dead = m_pid;
    m_pid = -1;
    m_sock.reset();
    m_jobs = 0;
    m_ready = false;
    const std::uint64_t limit = data_limit_bytes(m_settings);
    const std::uint64_t peak = std::max<std::uint64_t>(peak_data, static_cast<std::uint64_t>(ru.ru_maxrss) * 1024);
    const bool near_limit = limit > 0 && peak * 10 >= limit * 8;
    const std::string budget = std::to_string(m_settings.memory_mb);
    if (!invalid.empty()) {
        death = {core::ErrorCode::crashed, "The parser process returned an invalid result (" + invalid + ").", true};
    } else if (killed_for_time) {
        death = {core::ErrorCode::timeout, "The job ran out of its time budget and the parser process was stopped.",
                 false};
    } else if (got == dead && WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        if (sig == SIGXCPU) {
            death = {core::ErrorCode::timeout, "The parser process ran out of its CPU time budget.", false};
        } else if (near_limit && (sig == SIGABRT || sig == SIGSEGV || sig == SIGBUS || sig == SIGKILL)) {
            death = {core::ErrorCode::memory_limit,
                     "The parser process ran out of its memory budget of " + budget + " MB.", true};
        } else {
            death = {core::ErrorCode::crashed, "The parser process died with " + signal_name(sig) + ".", true};
        }
    } else if (got == dead && WIFEXITED(status) && WEXITSTATUS(status) == k_helper_exit_out_of_memory) {
        death = {core::ErrorCode::memory_limit, "The parser process ran out of its memory budget of " + budget + " MB.",
                 true};
    } else {
        death = {core::ErrorCode::crashed,
                 "The parser process exited unexpectedly (status " +
                     std::to_string(got == dead && WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ").",
                 true};
    }
    if (death.counted && m_settings.on_crash) m_settings.on_crash();
    start_quietly(); // the next job finds it warm
    log::warn("parser helper stopped during a job: " + death.message,
              {{"file_id", spec.file_id},
               {"pid", std::to_string(dead)},
               {"error_code", std::string(core::to_string(death.code))},
               {"peak_bytes", std::to_string(peak)}});
    return combine_results(parts, spec, hash, size, content_type, core::Failure{death.code, death.message});
}

// ---- process ---------------------------------------------------------------------------

PipelineResult OnDemandHelper::analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                                       const PipelineOptions& options) {
    const std::string mime = size == 0 ? "application/x-empty" : extractors::detect_content_type(fd);
    if (extractors::kind_of(mime) == extractors::Kind::other || size == 0) {
        return unparsed_result(size, hash, spec, mime); // nothing to parse
    }
    if (!m_helper) {
        m_pool = std::make_unique<HelperPool>(m_settings);
        m_helper = m_pool->make();
    }
    return m_helper->analyse(fd, size, hash, spec, options);
}

// ---- results -----------------------------------------------------------------------------

PipelineResult combine_results(const std::vector<PipelineResult>& parts, const JobSpec& spec, const std::string& hash,
                               std::uint64_t size, const std::string& content_type,
                               const std::optional<core::Failure>& stopped) {
    PipelineResult out;
    out.content_hash = hash;
    std::string type = content_type;
    for (const auto& p : parts) {
        if (type.empty()) {
            if (const auto* v = find_field(p.fields, "content_type")) type = *v;
        }
    }
    out.fields = {{"content_hash", hash}, {"size_bytes", std::to_string(size)}};
    if (!type.empty()) out.fields.emplace_back("content_type", type);
    static const std::set<std::string> k_own = {"content_hash", "size_bytes", "content_type", "error_code", "error"};
    // Text fields first, as analyse() orders them, whatever order the helper ran the steps in.
    for (bool text_pass : {true, false}) {
        for (const auto& p : parts) {
            if ((find_field(p.fields, "extraction_status") != nullptr) != text_pass) continue;
            for (const auto& kv : p.fields) {
                if (!k_own.count(kv.first)) out.fields.push_back(kv);
            }
            for (const auto& o : p.outputs) out.outputs.push_back(o);
            out.step_failed = out.step_failed || p.step_failed;
        }
    }
    if (stopped) {
        for (auto [wanted, prefix] :
             {std::pair{spec.step_text, "extraction"}, std::pair{spec.step_thumbnails, "thumbnail"}}) {
            const std::string p = prefix;
            if (!wanted || find_field(out.fields, p + "_status")) continue;
            out.fields.emplace_back(p + "_status", "failed");
            out.fields.emplace_back(p + "_error_code", std::string(core::to_string(stopped->code)));
            out.fields.emplace_back(p + "_error", stopped->message);
            out.step_failed = true;
        }
    }
    std::string first_code, first_message;
    for (const char* prefix : {"extraction", "thumbnail"}) {
        const std::string p = prefix;
        const auto* st = find_field(out.fields, p + "_status");
        if (first_code.empty() && st && *st == "failed") {
            const auto* c = find_field(out.fields, p + "_error_code");
            const auto* m = find_field(out.fields, p + "_error");
            first_code = c ? *c : "crashed";
            first_message = m ? *m : "The step failed.";
        }
    }
    if (!first_code.empty()) {
        out.fields.emplace_back("error_code", first_code);
        out.fields.emplace_back("error", first_message);
    } else if (spec.step_text && spec.step_thumbnails) {
        out.clear = {"error_code", "error"};
    }
    for (const auto& name : step_fields(spec.step_text, spec.step_thumbnails)) {
        if (!find_field(out.fields, name)) out.clear.push_back(name);
    }
    out.clear.push_back("deduplicated_from");
    return out;
}

std::string validate_result(const PipelineResult& r, const JobSpec& spec, const std::string& hash, std::uint64_t size,
                            const PipelineOptions& options) {
    std::set<std::string> allowed = {"content_hash", "size_bytes", "content_type", "error_code", "error"};
    for (const auto& f : step_fields(true, true)) allowed.insert(f);
    if (r.file_error_code) return "a file-level failure";
    std::set<std::string> seen;
    for (const auto& [k, v] : r.fields) {
        if (!allowed.count(k)) return "an unknown field " + k.substr(0, 40);
        if (!seen.insert(k).second) return "a repeated field " + k;
        if (!valid_utf8(v)) return "a field that is not UTF-8: " + k;
        if (v.size() > (k == "extracted_text" ? options.max_text_bytes : k_max_field)) return "an oversized field " + k;
    }
    if (const auto* h = find_field(r.fields, "content_hash"); h && *h != hash) return "another content hash";
    if (const auto* s = find_field(r.fields, "size_bytes"); s && *s != std::to_string(size)) return "another size";
    for (const auto& c : r.clear) {
        if (!allowed.count(c) && c != "deduplicated_from") return "an unknown field to clear";
    }
    std::map<std::string, const std::string*> outputs;
    const std::string text_key = "text/" + spec.file_id + ".txt";
    for (const auto& o : r.outputs) {
        if (!outputs.emplace(o.key, &o.bytes).second) return "a repeated output";
        if (o.key == text_key) {
            if (!valid_utf8(o.bytes)) return "a text output that is not UTF-8";
            continue;
        }
        bool thumb = false;
        for (int s : {72, 144, 288}) {
            thumb = thumb || o.key == "thumbnails/" + spec.file_id + "/" + std::to_string(s) + ".webp";
        }
        if (!thumb) return "an unexpected output key";
        if (!is_webp(o.bytes)) return "a thumbnail that is not a WebP file of a sane size";
    }
    for (const auto& [k, v] : r.fields) {
        if (k == "extracted_text_key" ||
            (k.rfind("thumbnail_", 0) == 0 && k.size() > 14 && k.compare(k.size() - 4, 4, "_key") == 0)) {
            if (!outputs.count(v)) return "a key field without its output: " + k;
        }
    }
    for (const auto& [key, bytes] : outputs) {
        (void)bytes;
        bool referenced = false;
        for (const auto& [k, v] : r.fields) referenced = referenced || v == key;
        if (!referenced) return "an output no field refers to";
    }
    return {};
}

} // namespace worker

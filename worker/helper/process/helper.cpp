#include "worker/helper/process/helper.hpp"

#include "core/fd.hpp"
#include "extractors/document_type.hpp"
#include "extractors/ocr_engine.hpp"
#include "extractors/pdf_text.hpp"
#include "extractors/sniff/content_type.hpp"
#include "thumbnails/thumbnailer.hpp"
#include "worker/helper/channel.hpp"
#include "worker/helper/process/decode_gate.hpp"
#include "worker/helper/process/share_lender.hpp"
#include "worker/helper/sandbox.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

// ingestd-helper links gperftools' tcmalloc (worker/CMakeLists.txt); glibc's malloc_trim does
// not reach its heap. Weak: `ingestd` itself and sanitizer builds run without it.
extern "C" void MallocExtension_ReleaseFreeMemory() __attribute__((weak));
extern "C" int MallocExtension_GetNumericProperty(const char* property, std::size_t* value) __attribute__((weak));

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
namespace ch = helper_channel;

void say(const std::string& line) {
    std::string s = "ingestd helper[" + std::to_string(::getpid()) + "]: " + line + "\n";
    (void)!::write(2, s.data(), s.size());
}

std::vector<std::filesystem::path> readable_paths() {
    // Of /etc only what the parsers' libraries read: fonts (Poppler, libvips), the loader's
    // cache, the time zone, libmagic's local rules. Not passwd, hosts, ssl, secrets mounts.
    std::vector<std::filesystem::path> p = {"/usr",
                                            "/lib",
                                            "/lib64",
                                            "/etc/fonts",
                                            "/etc/ld.so.cache",
                                            "/etc/localtime",
                                            "/etc/magic",
                                            "/etc/magic.mime",
                                            "/var/cache/fontconfig",
                                            "/sys/devices/system/cpu",
                                            "/dev/urandom",
                                            "/proc/self"};
    try {
        p.push_back(extractors::tessdata_dir());
        // Its own executable, for a sanitizer's symbolizer.
        p.push_back(std::filesystem::read_symlink("/proc/self/exe"));
    } catch (const std::exception&) {
    }
    return p;
}

sandbox::Report enter_sandbox(const HelperArgs& a) {
    sandbox::Limits limits;
    limits.data_bytes = helper_data_limit_bytes(a.memory_mb); // 0 in sanitizer builds: left as is
    limits.file_bytes = helper_file_limit_bytes(a.max_file_bytes);
    sandbox::apply_limits(limits);
    sandbox::Report report = sandbox::confine(a.scratch, readable_paths());
    for (const auto& w : report.warnings) say("warning: " + w);
    return report;
}

std::string errno_word(int e) {
    return e == 0 ? "ok" : std::string("denied: ") + std::strerror(e);
}

// The self-test's probes: each says "ok" (or what worked) or how it was denied.
std::string try_tcp_connect(int port) {
    const core::Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s) return errno_word(errno);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return ::connect(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 ? std::string("connected")
                                                                                    : errno_word(errno);
}

std::string try_unix_socket() {
    const core::Fd u(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    return u ? std::string("created") : errno_word(errno);
}

std::string try_write(const std::filesystem::path& p) {
    const core::Fd fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd) return errno_word(errno);
    return ::write(fd.get(), "x", 1) == 1 ? std::string("ok") : errno_word(errno);
}

int self_test(const HelperArgs& a) {
    nlohmann::json out;
    try {
        auto report = enter_sandbox(a);
        out["landlock_abi"] = report.landlock_abi;
        out["landlock"] = report.landlock;
        out["seccomp"] = report.seccomp;
    } catch (const std::exception& e) {
        out["sandbox_error"] = e.what();
    }
    out["tcp_connect"] = try_tcp_connect(a.self_test_port);
    out["unix_socket"] = try_unix_socket(); // Redis may listen on one
    // Files: outside the folder (must fail) and inside it (must work).
    out["write_outside"] = try_write(a.self_test_outside);
    out["write_inside"] = try_write(a.scratch / "self-test.txt");
    // Other processes: signal the parent, start a program.
    out["signal_parent"] = ::kill(::getppid(), 0) == 0 ? std::string("ok") : errno_word(errno);
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    out["fork"] = child > 0 ? std::string("ok") : errno_word(errno);
    out["read_system"] = ::access("/usr/share/misc/magic.mgc", R_OK) == 0 ? "ok" : errno_word(errno);
    const core::Fd etc(::open("/etc/passwd", O_RDONLY | O_CLOEXEC));
    out["read_etc_passwd"] = etc ? std::string("ok") : errno_word(errno);
    // Written where the worker reads it: it must come out as the helper's, tagged.
    std::fputs("self-test line on stderr\n", stderr);
    std::string line = out.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
    return 0;
}

// Engines and databases loaded before the first job, so jobs do not pay for them.
void preload(const std::string& langs, bool warm) {
    try {
        extractors::detect_content_type_buffer("%PDF-1.4\n", 9);
        extractors::detect_content_type_buffer("hello\n", 6); // the prose path's database
    } catch (const std::exception& e) {
        say(std::string("libmagic preload failed: ") + e.what());
    }
    if (warm) {
        // The first PDF and the first image of each format otherwise pay for fonts,
        // codecs and loader set-up (50-100 ms in all) inside a job.
        thumbnails::warm_up();
        try {
            const std::string pdf = thumbnails::tiny_pdf();
            extractors::TextOptions t;
            t.ocr_mode = extractors::OcrMode::off;
            extractors::extract_pdf_text(std::span(reinterpret_cast<const unsigned char*>(pdf.data()), pdf.size()), t);
        } catch (const std::exception& e) {
            say(std::string("PDF warm-up failed: ") + e.what());
        }
    }
    if (langs.empty()) return;
    try {
        std::vector<unsigned char> white(32 * 32, 255);
        extractors::GreyImage img{white.data(), 32, 32, 32, 300};
        extractors::ocr_page(img, langs, Clock::now() + std::chrono::seconds(10));
    } catch (const std::exception& e) {
        say(std::string("OCR preload failed: ") + e.what());
    }
}

// What a request asks for besides its input.
struct Request {
    JobSpec spec;
    PipelineOptions options;
    std::string hash;
};

std::optional<Request> parse_request(const nlohmann::json& j) {
    try {
        Request r;
        r.spec = ch::spec_from_json(j.at("spec"));
        const auto remaining = std::chrono::milliseconds(j.at("remaining_ms").get<long long>());
        r.options = ch::options_from_json(j.at("options"), Clock::now() + remaining);
        r.hash = j.at("hash").get<std::string>();
        return r;
    } catch (const std::exception& e) {
        say(std::string("bad request: ") + e.what());
        return std::nullopt;
    }
}

// Thumbnails (quick) before text (maybe slow), as separate results, so that a timeout or
// crash during OCR keeps the thumbnails.
std::vector<JobSpec> split_steps(const JobSpec& spec) {
    if (!spec.step_text || !spec.step_thumbnails) return {spec};
    JobSpec thumbs = spec, text = spec;
    thumbs.step_text = false;
    text.step_thumbnails = false;
    return {thumbs, text};
}

// One request on its input, which it owns: closed on every path when this returns. The
// type goes first, then one result per step. False when the request or the socket fails.
bool answer(int sock, const core::Fd input, const nlohmann::json& j) {
    struct stat st {};
    if (::fstat(input.get(), &st) != 0) return false;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    const auto request = parse_request(j);
    if (!request) return false;
    const std::string mime =
        size == 0 ? "application/x-empty"
                  : extractors::refine_content_type(input.get(), extractors::detect_content_type(input.get()));
    if (!ch::send(sock, ch::Type::typed, {{"content_type", mime}})) return false;
    const std::vector<JobSpec> parts = split_steps(request->spec);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        PipelineResult r = analyse(input.get(), size, request->hash, parts[i], request->options, mime);
        std::string blob;
        int text_file = -1; // a long text's spool: it goes with the message, closed here after
        const auto result = ch::to_json(r, blob, &text_file);
        for (auto& o : r.outputs) o.bytes = {}; // in the blob now
        if (!ch::send(sock, i + 1 == parts.size() ? ch::Type::result : ch::Type::partial, result, blob, text_file)) {
            return false;
        }
    }
    return true;
}

// Free heap kept between jobs: libmagic's read buffer (7 MiB, zeroed on every call) and the
// like. Given back after each job, a small file's job faulted it in again every time: most
// of a tiny file's cost (3000 one-line files went at ~330 jobs/s).
constexpr std::size_t k_kept_free_bytes = std::size_t(16) << 20;

// Gives a large file's heap back before the worker measures RSS.
void release_free_memory() {
    if (MallocExtension_ReleaseFreeMemory != nullptr) {
        std::size_t free_bytes = 0;
        const bool keep = MallocExtension_GetNumericProperty != nullptr &&
                          MallocExtension_GetNumericProperty("tcmalloc.pageheap_free_bytes", &free_bytes) != 0 &&
                          free_bytes <= k_kept_free_bytes;
        if (!keep) MallocExtension_ReleaseFreeMemory();
    } else {
        ::malloc_trim(0);
    }
}

bool serve(int sock, ch::Message& m) {
    if (m.type != ch::Type::request || !m.fd) return false;
    if (!answer(sock, std::move(m.fd), m.json)) return false;
    release_free_memory();
    return true;
}

} // namespace

int run_helper(const HelperArgs& a) {
    if (a.self_test_sandbox) return self_test(a);
    // Die with the worker; if it is already gone, do not start.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (a.parent != 0 && ::getppid() != a.parent) return 1;
    ::signal(SIGPIPE, SIG_IGN);
    ::signal(SIGXFSZ, SIG_IGN); // a scratch file past RLIMIT_FSIZE fails its write, not the process
    // Opened before the sandbox, which then allows no file outside the scratch folder.
    if (!open_decode_gate(a.decode_lock)) say("warning: cannot open the large-decode gate; decoding without it");
    if (!lend_threads_from(a.thread_share, a.slot)) say("warning: cannot map the worker's thread share");
    sandbox::Report report;
    try {
        report = enter_sandbox(a);
    } catch (const std::exception& e) {
        say(std::string("cannot enter the sandbox: ") + e.what());
        return 1;
    }
    thumbnails::init();
    preload(a.preload_langs, a.warm);
    nlohmann::json ready = {{"pid", ::getpid()},
                            {"landlock_abi", report.landlock_abi},
                            {"landlock", report.landlock},
                            {"seccomp", report.seccomp}};
    if (!ch::send(a.channel, ch::Type::ready, ready)) return 1;
    for (;;) {
        auto m = ch::receive_blocking(a.channel);
        if (!m) return 0; // the worker closed the channel: recycled or shutting down
        try {
            if (!serve(a.channel, *m)) return 1;
        } catch (const std::bad_alloc&) {
            // Outside the steps' own handling: let the worker see the death and its memory.
            say("out of memory");
            return k_helper_exit_out_of_memory;
        }
    }
}

int helper_main(int argc, char** argv) {
    CLI::App app{"ingestd-helper: a sandboxed parser process started by `ingestd worker`"};
    HelperArgs args;
    std::string scratch, outside;
    app.add_option("--channel", args.channel);
    app.add_option("--parent", args.parent);
    app.add_option("--scratch", scratch)->required();
    app.add_option("--memory-mb", args.memory_mb);
    app.add_option("--max-file-bytes", args.max_file_bytes);
    app.add_option("--preload", args.preload_langs);
    app.add_flag("--warm", args.warm);
    app.add_option("--decode-lock", args.decode_lock);
    app.add_option("--thread-share", args.thread_share);
    app.add_option("--slot", args.slot);
    app.add_flag("--self-test-sandbox", args.self_test_sandbox);
    app.add_option("--outside", outside);
    app.add_option("--tcp-port", args.self_test_port);
    // The worker passes "helper" first, as to `ingestd helper`.
    std::vector<std::string> rest;
    for (int i = argc - 1; i >= 1; --i) {
        if (i == 1 && std::string_view(argv[1]) == "helper") break;
        rest.emplace_back(argv[i]);
    }
    try {
        app.parse(rest); // CLI11 takes the vector in reverse order
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    args.scratch = scratch;
    args.self_test_outside = outside;
    return run_helper(args);
}

} // namespace worker

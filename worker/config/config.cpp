#include "worker/config/config.hpp"

#include "jobs/redis.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include <unistd.h>

namespace worker {
namespace {

constexpr const char* k_positive = "a positive integer";

std::string quoted(const std::string& s) {
    return "\"" + s + "\"";
}

ConfigError bad(const std::string& env, const std::string& expected, const std::string& got) {
    return ConfigError("invalid " + env + ": expected " + expected + ", got " + quoted(got));
}

std::uint64_t parse_u64(const std::string& env, const std::string& v, std::uint64_t min, std::uint64_t max,
                        const std::string& expected) {
    if (v.empty() || v.size() > 19) throw bad(env, expected, v);
    std::uint64_t n = 0;
    for (char c : v) {
        if (c < '0' || c > '9') throw bad(env, expected, v);
        n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (n < min || n > max) throw bad(env, expected, v);
    return n;
}

// Digits, then optionally one of the IEC units (KiB, MiB, GiB, TiB) or B.
std::uint64_t parse_bytes(const std::string& env, const std::string& v, std::uint64_t min, std::uint64_t max,
                          const std::string& expected) {
    static const std::pair<const char*, int> k_units[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    std::size_t digits = 0;
    while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9') ++digits;
    std::string unit = v.substr(digits);
    if (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
    int shift = 0;
    for (const auto& [name, bits] : k_units) {
        if (unit == name) shift = bits;
    }
    if (shift == 0 && !unit.empty() && unit != "B") throw bad(env, expected, v);
    const std::uint64_t n = parse_u64(env, v.substr(0, digits), 0, UINT64_MAX >> shift, expected);
    const std::uint64_t total = n << shift;
    if (total < min || total > max) throw bad(env, expected, v);
    return total;
}

std::string default_consumer() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
        std::snprintf(host, sizeof host, "ingestd");
    }
    return std::string(host) + "-" + std::to_string(::getpid());
}

bool has_control_or_space(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](unsigned char ch) { return ch <= 0x20 || ch == 0x7F; });
}

bool valid_name(const std::string& s) {
    return !s.empty() && s.size() <= 200 && !has_control_or_space(s);
}

// Where a setting's value comes from: its flag, else its environment variable.
class Source {
public:
    explicit Source(const std::map<std::string, std::string>& flags) : m_flags(flags) {}

    // The value of `env`, or nullopt when neither its flag nor the variable is set.
    std::optional<std::string> get(const char* env) const {
        if (auto it = m_flags.find(env); it != m_flags.end()) return it->second;
        if (const char* v = std::getenv(env); v != nullptr) return std::string(v);
        return std::nullopt;
    }

    // Sets `field` to the integer value of `env` when given, within [min, max].
    template <typename Int>
    void number(const char* env, Int& field, Int min, Int max, const std::string& expected) const {
        if (auto v = get(env)) {
            field = static_cast<Int>(
                parse_u64(env, *v, static_cast<std::uint64_t>(min), static_cast<std::uint64_t>(max), expected));
        }
    }

    // Sets `field` to the byte count of `env` when given ("1048576", "512MiB", "10GiB"),
    // within [min, max].
    void bytes(const char* env, std::uint64_t& field, std::uint64_t min, std::uint64_t max,
               const std::string& expected) const {
        if (auto v = get(env)) field = parse_bytes(env, *v, min, max, expected);
    }

    // Sets `field` to the value of `env` when given and one of `allowed`.
    void choice(const char* env, std::string& field, std::initializer_list<const char*> allowed,
                const std::string& expected) const {
        if (auto v = get(env)) {
            if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return *v == a; })) {
                throw bad(env, expected, *v);
            }
            field = *v;
        }
    }

    // Sets `field` to the value of `env` when given and a valid Redis name.
    void name(const char* env, std::string& field) const {
        if (auto v = get(env)) {
            if (!valid_name(*v)) throw bad(env, "a non-empty name without spaces", *v);
            field = *v;
        }
    }

private:
    const std::map<std::string, std::string>& m_flags;
};

// Redis and storage: where the work comes from and goes.
void load_names(const Source& source, Config& c) {
    if (auto v = source.get("INGEST_REDIS_URL")) {
        try {
            jobs::parse_redis_url(*v);
        } catch (const std::invalid_argument& e) {
            throw ConfigError(
                "invalid INGEST_REDIS_URL: " + std::string(e.what()) +
                "; expected redis[s]://[user:password@]host[:port][/db], "
                "redis-sentinel://host:port[,host:port...]/MASTER_NAME[/db] or unix:///path[?db=N], got " +
                quoted(jobs::redacted_redis_url(*v)));
        }
        c.redis_url = *v;
        c.redis_url_given = true;
    }
    source.name("INGEST_STREAM", c.stream);
    source.name("INGEST_GROUP", c.group);
    source.name("INGEST_CONSUMER", c.consumer);
    if (auto v = source.get("INGEST_KEY_PREFIX")) {
        if (has_control_or_space(*v)) throw bad("INGEST_KEY_PREFIX", "a prefix without spaces", *v);
        c.key_prefix = *v;
    }
    if (auto v = source.get("INGEST_STORAGE_ROOT")) {
        if (v->empty()) throw bad("INGEST_STORAGE_ROOT", "a folder path", *v);
        c.storage_root = *v;
    }
}

// A file setting that must name a readable file.
void readable_file(const Source& source, const char* env, std::string& field) {
    if (auto v = source.get(env)) {
        if (v->empty() || ::access(v->c_str(), R_OK) != 0) throw bad(env, "a readable file", *v);
        field = *v;
    }
}

// The TLS files of a rediss:// URL: a CA, and a client certificate with its key.
void load_redis_tls(const Source& source, Config& c) {
    readable_file(source, "INGEST_REDIS_CA", c.redis_ca);
    readable_file(source, "INGEST_REDIS_CERT", c.redis_cert);
    readable_file(source, "INGEST_REDIS_KEY", c.redis_key);
    if (c.redis_cert.empty() != c.redis_key.empty()) {
        throw ConfigError("INGEST_REDIS_CERT and INGEST_REDIS_KEY go together: set both or neither");
    }
    const bool any = !c.redis_ca.empty() || !c.redis_cert.empty();
    if (any && c.redis_url.rfind("rediss://", 0) != 0) {
        throw ConfigError("INGEST_REDIS_CA, INGEST_REDIS_CERT and INGEST_REDIS_KEY apply to a rediss:// "
                          "INGEST_REDIS_URL only");
    }
}

// How the worker runs: jobs in flight, its HTTP endpoint, OCR.
void load_service(const Source& source, Config& c) {
    source.number("INGEST_CONCURRENCY", c.concurrency, 1, 1024, k_positive);
    source.number("INGEST_LOOKAHEAD", c.lookahead, 0, 10000, "a non-negative integer");
    if (auto v = source.get("INGEST_HTTP_ADDR")) {
        if (*v != "off") {
            auto colon = v->rfind(':');
            if (colon == std::string::npos || colon == 0) throw bad("INGEST_HTTP_ADDR", "host:port or off", *v);
            parse_u64("INGEST_HTTP_ADDR", v->substr(colon + 1), 0, 65535, "host:port or off");
        }
        c.http_addr = *v;
    }
    if (auto v = source.get("INGEST_OCR_LANGS")) {
        bool ok = !v->empty();
        for (char ch : *v) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '+');
        if (!ok) throw bad("INGEST_OCR_LANGS", "Tesseract language names joined with +", *v);
        c.ocr_langs = *v;
    }
    source.choice("INGEST_OCR_MODE", c.ocr_mode, {"auto", "force", "off"}, "auto, force or off");
}

// What one file may cost, and how long the queue waits for it.
void load_limits(const Source& source, Config& c) {
    source.bytes("INGEST_MAX_FILE_BYTES", c.max_file_bytes, 1, UINT64_MAX / 2,
                 "a positive byte count (1048576, 512MiB, 10GiB)");
    source.number<std::uint64_t>("INGEST_MAX_PIXELS", c.max_pixels, 1, UINT64_MAX / 2, "a positive pixel count");
    source.number("INGEST_MAX_PAGES", c.max_pages, 1, 10000000, k_positive);
    source.number("INGEST_MAX_OCR_PAGES", c.max_ocr_pages, 0, 10000000, "a non-negative integer");
    source.bytes("INGEST_MAX_TEXT_BYTES", c.max_text_bytes, 1, 512ULL << 20,
                 "a byte count from 1 to 536870912 (512MiB)");
    source.number("INGEST_JOB_TIMEOUT_S", c.job_timeout_s, 1, 86400, "seconds from 1 to 86400");
    source.number("INGEST_JOB_MEMORY_MB", c.job_memory_mb, 64, 1 << 20, "megabytes, at least 64");
    source.number("INGEST_CLAIM_IDLE_MS", c.claim_idle_ms, 100, 86400000, "milliseconds, at least 100");
    source.number("INGEST_MAX_DELIVERIES", c.max_deliveries, 1, 1000000, k_positive);
    source.number("INGEST_SHUTDOWN_GRACE_S", c.shutdown_grace_s, 0, 86400, "seconds from 0 to 86400");
    source.number("INGEST_WEBP_QUALITY", c.webp_quality, 1, 100, "an integer from 1 to 100");
}

// Reuse of results, and logging.
void load_behaviour(const Source& source, Config& c) {
    std::string reuse = c.reuse ? "on" : "off";
    source.choice("INGEST_REUSE", reuse, {"on", "off"}, "on or off");
    c.reuse = reuse == "on";
    std::string redirect = c.thumbnail_redirect ? "on" : "off";
    source.choice("INGEST_THUMBNAIL_REDIRECT", redirect, {"on", "off"}, "on or off");
    c.thumbnail_redirect = redirect == "on";
    source.choice("INGEST_LOG_FORMAT", c.log_format, {"text", "json"}, "text or json");
    // spdlog prints `warning`, and takes `warn` too: both are accepted.
    source.choice("INGEST_LOG_LEVEL", c.log_level,
                  {"trace", "debug", "info", "warning", "warn", "error", "critical", "off"},
                  "trace, debug, info, warning, error, critical or off");
    if (auto v = source.get("INGEST_HTTP_TOKEN")) {
        if (v->empty() || has_control_or_space(*v)) throw bad("INGEST_HTTP_TOKEN", "a token without spaces", "…");
        c.http_token = *v;
    }
}

} // namespace

const std::vector<Setting>& settings() {
    constexpr unsigned queue = k_scope_redis | k_scope_worker, job = k_scope_parse | k_scope_worker;
    static const std::vector<Setting> all = {
        {"INGEST_REDIS_URL", "redis-url", "Redis URL (default redis://127.0.0.1:6379/0)", "URL", queue},
        {"INGEST_REDIS_CA", "redis-ca", "CA certificates for a rediss:// URL (default: the system's)", "FILE", queue},
        {"INGEST_REDIS_CERT", "redis-cert", "client certificate for a rediss:// URL (default none)", "FILE", queue},
        {"INGEST_REDIS_KEY", "redis-key", "the client certificate's key (default none)", "FILE", queue},
        {"INGEST_STREAM", "stream", "stream of upload events (default ingest:uploads)", "NAME", queue},
        {"INGEST_GROUP", "group", "consumer group (default ingestd)", "NAME", queue},
        {"INGEST_CONSUMER", "consumer", "this worker's consumer name (default <hostname>-<pid>)", "NAME",
         k_scope_worker},
        {"INGEST_KEY_PREFIX", "key-prefix", "prefix of every key written (default ingest:)", "PREFIX", queue},
        {"INGEST_STORAGE_ROOT", "storage-root", "a folder or s3://BUCKET[/PREFIX] (default ./data/files)", "ROOT",
         k_scope_storage | k_scope_worker},
        {"INGEST_CONCURRENCY", "concurrency", "jobs in flight (default: number of cores)", "N", k_scope_worker},
        {"INGEST_LOOKAHEAD", "lookahead", "events read ahead for the fast lane (default 32; 0 turns the lanes off)",
         "N", k_scope_worker},
        {"INGEST_HTTP_ADDR", "http-addr", "health/metrics address or off (default 127.0.0.1:9464)", "HOST:PORT",
         k_scope_worker},
        {"INGEST_HTTP_TOKEN", "http-token", "bearer token for the dashboard, /v1 and actions (default unset)", "TOKEN",
         k_scope_worker},
        {"INGEST_OCR_LANGS", "ocr-langs", "Tesseract languages, eng+deu (default eng)", "LANGS", job},
        {"INGEST_OCR_MODE", "ocr-mode", "auto, force or off (default auto)", "MODE", job},
        {"INGEST_MAX_FILE_BYTES", "max-file-bytes", "larger files fail with too_large (default 10GiB)", "BYTES", job},
        {"INGEST_MAX_PIXELS", "max-pixels", "larger images fail with too_many_pixels (default 100000000)", "N", job},
        {"INGEST_MAX_PAGES", "max-pages", "PDF pages read for text (default 2000)", "N", job},
        {"INGEST_MAX_OCR_PAGES", "max-ocr-pages", "pages sent to OCR (default 100)", "N", job},
        {"INGEST_MAX_TEXT_BYTES", "max-text-bytes", "text kept inline (default 1048576, i.e. 1MiB)", "BYTES", job},
        {"INGEST_JOB_TIMEOUT_S", "job-timeout-s", "one file's wall-clock budget (default 600)", "SECONDS", job},
        {"INGEST_JOB_MEMORY_MB", "job-memory-mb", "one extraction's memory budget (default 1024)", "MB", job},
        {"INGEST_CLAIM_IDLE_MS", "claim-idle-ms", "idle time before a pending entry is reclaimed (default 60000)", "MS",
         k_scope_worker},
        {"INGEST_MAX_DELIVERIES", "max-deliveries", "deliveries before dead-lettering (default 5)", "N",
         k_scope_worker},
        {"INGEST_SHUTDOWN_GRACE_S", "shutdown-grace-s", "time to finish jobs after SIGTERM (default 25)", "SECONDS",
         k_scope_worker},
        {"INGEST_WEBP_QUALITY", "webp-quality", "thumbnail quality 1-100 (default 80)", "N", job},
        {"INGEST_REUSE", "reuse", "reuse a finished result for identical bytes: on or off (default on)", "on|off",
         k_scope_worker},
        {"INGEST_THUMBNAIL_REDIRECT", "thumbnail-redirect",
         "HTTP thumbnails as a 302 to a presigned object-store URL: on or off (default off)", "on|off", k_scope_worker},
        {"INGEST_LOG_FORMAT", "log-format", "text or json (default text)", "text|json", k_scope_log},
        {"INGEST_LOG_LEVEL", "log-level", "trace, debug, info, warning, error (default info)", "LEVEL", k_scope_log},
    };
    return all;
}

Config load_config(const std::map<std::string, std::string>& flags) {
    const Source source(flags);
    Config c;
    unsigned cores = std::thread::hardware_concurrency();
    c.concurrency = cores == 0 ? 1 : static_cast<int>(cores);
    c.consumer = default_consumer();
    // In the order of settings(): the first bad value is the one reported.
    load_names(source, c);
    load_redis_tls(source, c);
    load_service(source, c);
    load_limits(source, c);
    load_behaviour(source, c);
    return c;
}

jobs::RedisAddress redis_address(const Config& c) {
    jobs::RedisAddress a = jobs::parse_redis_url(c.redis_url);
    a.tls.ca_file = c.redis_ca;
    a.tls.cert_file = c.redis_cert;
    a.tls.key_file = c.redis_key;
    return a;
}

jobs::QueueNames queue_names(const Config& c) {
    jobs::QueueNames n;
    n.stream = c.stream;
    n.group = c.group;
    n.consumer = c.consumer;
    n.prefix = c.key_prefix;
    return n;
}

} // namespace worker

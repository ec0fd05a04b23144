#include "worker/config/config.hpp"

#include "jobs/redis.hpp"

#include <cstdlib>
#include <functional>
#include <thread>

#include <unistd.h>

namespace worker {
namespace {

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

int parse_int(const std::string& env, const std::string& v, int min, int max, const std::string& expected) {
    return static_cast<int>(
        parse_u64(env, v, static_cast<std::uint64_t>(min), static_cast<std::uint64_t>(max), expected));
}

std::string default_consumer() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') {
        std::snprintf(host, sizeof host, "ingestd");
    }
    return std::string(host) + "-" + std::to_string(::getpid());
}

bool valid_name(const std::string& s) {
    if (s.empty() || s.size() > 200) return false;
    for (unsigned char c : s) {
        if (c <= 0x20 || c == 0x7F) return false;
    }
    return true;
}

} // namespace

const std::vector<Setting>& settings() {
    static const std::vector<Setting> all = {
        {"INGEST_REDIS_URL", "redis-url", "Redis URL (default redis://127.0.0.1:6379/0)"},
        {"INGEST_STREAM", "stream", "stream of upload events (default ingest:uploads)"},
        {"INGEST_GROUP", "group", "consumer group (default ingestd)"},
        {"INGEST_CONSUMER", "consumer", "this worker's consumer name (default <hostname>-<pid>)"},
        {"INGEST_KEY_PREFIX", "key-prefix", "prefix of every key written (default ingest:)"},
        {"INGEST_STORAGE_ROOT", "storage-root", "root of the filesystem store (default ./data/files)"},
        {"INGEST_CONCURRENCY", "concurrency", "jobs in flight (default: number of cores)"},
        {"INGEST_HTTP_ADDR", "http-addr", "health/metrics address or off (default 127.0.0.1:9464)"},
        {"INGEST_OCR_LANGS", "ocr-langs", "Tesseract languages, eng+deu (default eng)"},
        {"INGEST_OCR_MODE", "ocr-mode", "auto, force or off (default auto)"},
        {"INGEST_MAX_FILE_BYTES", "max-file-bytes", "larger files fail with too_large (default 10 GiB)"},
        {"INGEST_MAX_PIXELS", "max-pixels", "larger images fail with too_many_pixels (default 100000000)"},
        {"INGEST_MAX_PAGES", "max-pages", "PDF pages read for text (default 2000)"},
        {"INGEST_MAX_OCR_PAGES", "max-ocr-pages", "pages sent to OCR (default 100)"},
        {"INGEST_MAX_TEXT_BYTES", "max-text-bytes", "text kept inline (default 1048576)"},
        {"INGEST_JOB_TIMEOUT_S", "job-timeout-s", "one file's wall-clock budget (default 600)"},
        {"INGEST_JOB_MEMORY_MB", "job-memory-mb", "one extraction's memory budget (default 1024)"},
        {"INGEST_CLAIM_IDLE_MS", "claim-idle-ms", "idle time before a pending entry is reclaimed (default 60000)"},
        {"INGEST_MAX_DELIVERIES", "max-deliveries", "deliveries before dead-lettering (default 5)"},
        {"INGEST_SHUTDOWN_GRACE_S", "shutdown-grace-s", "time to finish jobs after SIGTERM (default 25)"},
        {"INGEST_WEBP_QUALITY", "webp-quality", "thumbnail quality 1-100 (default 80)"},
        {"INGEST_REUSE", "reuse", "reuse a finished result for identical bytes: on or off (default on)"},
        {"INGEST_LOG_FORMAT", "log-format", "text or json (default text)"},
        {"INGEST_LOG_LEVEL", "log-level", "trace, debug, info, warn, error (default info)"},
    };
    return all;
}

Config load_config(const std::map<std::string, std::string>& flags) {
    Config c;
    unsigned cores = std::thread::hardware_concurrency();
    c.concurrency = cores == 0 ? 1 : static_cast<int>(cores);
    c.consumer = default_consumer();

    auto value = [&](const char* env, std::string& out) -> bool {
        if (auto it = flags.find(env); it != flags.end()) {
            out = it->second;
            return true;
        }
        if (const char* v = std::getenv(env); v != nullptr) {
            out = v;
            return true;
        }
        return false;
    };
    const std::string pos = "a positive integer";
    std::string v;
    if (value("INGEST_REDIS_URL", v)) {
        try {
            jobs::parse_redis_url(v);
        } catch (const std::invalid_argument& e) {
            throw bad("INGEST_REDIS_URL",
                      std::string("redis://[:password@]host:port/db or unix:///path (") + e.what() + ")", v);
        }
        c.redis_url = v;
        c.redis_url_given = true;
    }
    auto name = [&](const char* env, std::string& field) {
        if (value(env, v)) {
            if (!valid_name(v)) throw bad(env, "a non-empty name without spaces", v);
            field = v;
        }
    };
    name("INGEST_STREAM", c.stream);
    name("INGEST_GROUP", c.group);
    name("INGEST_CONSUMER", c.consumer);
    if (value("INGEST_KEY_PREFIX", v)) {
        for (unsigned char ch : v) {
            if (ch <= 0x20 || ch == 0x7F) throw bad("INGEST_KEY_PREFIX", "a prefix without spaces", v);
        }
        c.key_prefix = v;
    }
    if (value("INGEST_STORAGE_ROOT", v)) {
        if (v.empty()) throw bad("INGEST_STORAGE_ROOT", "a folder path", v);
        c.storage_root = v;
    }
    if (value("INGEST_CONCURRENCY", v)) c.concurrency = parse_int("INGEST_CONCURRENCY", v, 1, 1024, pos);
    if (value("INGEST_HTTP_ADDR", v)) {
        if (v != "off") {
            auto colon = v.rfind(':');
            if (colon == std::string::npos || colon == 0) throw bad("INGEST_HTTP_ADDR", "host:port or off", v);
            parse_int("INGEST_HTTP_ADDR", v.substr(colon + 1), 0, 65535, "host:port or off");
        }
        c.http_addr = v;
    }
    if (value("INGEST_OCR_LANGS", v)) {
        bool ok = !v.empty();
        for (char ch : v) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '+');
        if (!ok) throw bad("INGEST_OCR_LANGS", "Tesseract language names joined with +", v);
        c.ocr_langs = v;
    }
    if (value("INGEST_OCR_MODE", v)) {
        if (v != "auto" && v != "force" && v != "off") throw bad("INGEST_OCR_MODE", "auto, force or off", v);
        c.ocr_mode = v;
    }
    if (value("INGEST_MAX_FILE_BYTES", v))
        c.max_file_bytes = parse_u64("INGEST_MAX_FILE_BYTES", v, 1, UINT64_MAX / 2, "a positive byte count");
    if (value("INGEST_MAX_PIXELS", v))
        c.max_pixels = parse_u64("INGEST_MAX_PIXELS", v, 1, UINT64_MAX / 2, "a positive pixel count");
    if (value("INGEST_MAX_PAGES", v)) c.max_pages = parse_int("INGEST_MAX_PAGES", v, 1, 10000000, pos);
    if (value("INGEST_MAX_OCR_PAGES", v))
        c.max_ocr_pages = parse_int("INGEST_MAX_OCR_PAGES", v, 0, 10000000, "a non-negative integer");
    if (value("INGEST_MAX_TEXT_BYTES", v))
        c.max_text_bytes = parse_u64("INGEST_MAX_TEXT_BYTES", v, 1, 512ULL << 20, "a byte count from 1 to 536870912");
    if (value("INGEST_JOB_TIMEOUT_S", v))
        c.job_timeout_s = parse_int("INGEST_JOB_TIMEOUT_S", v, 1, 86400, "seconds from 1 to 86400");
    if (value("INGEST_JOB_MEMORY_MB", v))
        c.job_memory_mb = parse_int("INGEST_JOB_MEMORY_MB", v, 64, 1 << 20, "megabytes, at least 64");
    if (value("INGEST_CLAIM_IDLE_MS", v))
        c.claim_idle_ms = parse_int("INGEST_CLAIM_IDLE_MS", v, 100, 86400000, "milliseconds, at least 100");
    if (value("INGEST_MAX_DELIVERIES", v)) c.max_deliveries = parse_int("INGEST_MAX_DELIVERIES", v, 1, 1000000, pos);
    if (value("INGEST_SHUTDOWN_GRACE_S", v))
        c.shutdown_grace_s = parse_int("INGEST_SHUTDOWN_GRACE_S", v, 0, 86400, "seconds from 0 to 86400");
    if (value("INGEST_WEBP_QUALITY", v))
        c.webp_quality = parse_int("INGEST_WEBP_QUALITY", v, 1, 100, "an integer from 1 to 100");
    if (value("INGEST_REUSE", v)) {
        if (v != "on" && v != "off") throw bad("INGEST_REUSE", "on or off", v);
        c.reuse = v == "on";
    }
    if (value("INGEST_LOG_FORMAT", v)) {
        if (v != "text" && v != "json") throw bad("INGEST_LOG_FORMAT", "text or json", v);
        c.log_format = v;
    }
    if (value("INGEST_LOG_LEVEL", v)) {
        static const char* levels[] = {"trace", "debug", "info", "warn", "error", "critical", "off"};
        bool ok = false;
        for (const char* l : levels) ok = ok || v == l;
        if (!ok) throw bad("INGEST_LOG_LEVEL", "trace, debug, info, warn, error, critical or off", v);
        c.log_level = v;
    }
    return c;
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

#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis_url.hpp"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace worker {

/// A bad configuration value: the message is the one line printed before exit 2.
class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Every setting of the spec, validated.
struct Config {
    std::string redis_url = "redis://127.0.0.1:6379/0";
    bool redis_url_given = false; // INGEST_REDIS_URL or --redis-url was set explicitly
    std::string redis_ca;         // INGEST_REDIS_CA: CA file for rediss:// (empty: the system's)
    std::string redis_cert;       // INGEST_REDIS_CERT / INGEST_REDIS_KEY: a client certificate
    std::string redis_key;
    std::string stream = "ingest:uploads";
    std::string group = "ingestd";
    std::string consumer;
    std::string key_prefix = "ingest:";
    std::string storage_root = "./data/files";
    int concurrency = 1;
    int lookahead = 32; // INGEST_LOOKAHEAD: events held beyond the running ones (the fast lane finds small files)
    std::string http_addr = "127.0.0.1:9464"; // "off" disables
    std::string ocr_langs = "eng";
    std::string ocr_mode = "auto"; // auto, force, off
    std::uint64_t max_file_bytes = 10ULL << 30;
    std::uint64_t max_pixels = 100000000;
    int max_pages = 2000;
    int max_ocr_pages = 100;
    std::uint64_t max_text_bytes = 1048576;
    int job_timeout_s = 600;
    int job_memory_mb = 1024;
    int claim_idle_ms = 60000;
    int max_deliveries = 5;
    int shutdown_grace_s = 25;
    int webp_quality = 80;
    bool reuse = true;               // content-hash reuse of finished results for identical bytes
    bool thumbnail_redirect = false; // HTTP thumbnails: 302 to a presigned URL of the object store
    std::string log_format = "text";
    std::string log_level = "info";
    std::string http_token; // INGEST_HTTP_TOKEN; empty: no token, and HTTP actions are refused
};

/// The Redis names (stream, group, consumer, key prefix) of this configuration: the only
/// place they are taken from the settings; jobs::QueueNames builds every key from them.
jobs::QueueNames queue_names(const Config& config);

/// Where Redis is: the URL with the TLS files of the configuration.
jobs::RedisAddress redis_address(const Config& config);

/// Which commands a setting concerns (a command's flags are those of its scopes).
enum SettingScope : unsigned {
    k_scope_log = 1,     // every command
    k_scope_redis = 2,   // commands that speak to Redis
    k_scope_storage = 4, // commands that read or write the store
    k_scope_parse = 8,   // commands that run the pipeline (limits, OCR, thumbnails)
    k_scope_worker = 16, // only the daemon
    k_scope_all = 31,
};

/// One setting: its environment variable, its flag, its help (with its default), the type
/// of its value as --help shows it, and the commands it concerns.
struct Setting {
    const char* env;
    const char* flag; // without the leading "--"
    const char* help;
    const char* type; // "SECONDS", "BYTES", ...
    unsigned scope;   // SettingScope bits
};

/// All settings, in the order of the spec's table.
const std::vector<Setting>& settings();

/// Builds the configuration from flags (by env name, only those given), then the
/// environment, then defaults. Throws ConfigError naming the INGEST_* variable.
Config load_config(const std::map<std::string, std::string>& flags);

} // namespace worker

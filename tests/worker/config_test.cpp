#include "worker/config/config.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

namespace {

using worker::ConfigError;
using worker::load_config;

// Sets an environment variable for one test and restores it afterwards.
class EnvVar {
public:
    EnvVar(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_old = old;
        ::setenv(name, value, 1);
    }
    ~EnvVar() {
        if (m_old)
            ::setenv(m_name, m_old->c_str(), 1);
        else
            ::unsetenv(m_name);
    }

private:
    const char* m_name;
    std::optional<std::string> m_old;
};

std::string error_of(const std::map<std::string, std::string>& flags) {
    try {
        load_config(flags);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

TEST(Config, Defaults) {
    auto c = load_config({});
    EXPECT_EQ(c.redis_url, "redis://127.0.0.1:6379/0");
    EXPECT_EQ(c.stream, "ingest:uploads");
    EXPECT_EQ(c.group, "ingestd");
    EXPECT_EQ(c.key_prefix, "ingest:");
    EXPECT_EQ(c.storage_root, "./data/files");
    EXPECT_GE(c.concurrency, 1);
    EXPECT_EQ(c.http_addr, "127.0.0.1:9464");
    EXPECT_EQ(c.ocr_mode, "auto");
    EXPECT_EQ(c.max_file_bytes, 10ULL << 30);
    EXPECT_EQ(c.max_pixels, 100000000u);
    EXPECT_EQ(c.max_text_bytes, 1048576u);
    EXPECT_EQ(c.claim_idle_ms, 60000);
    EXPECT_EQ(c.max_deliveries, 5);
    EXPECT_EQ(c.webp_quality, 80);
    EXPECT_TRUE(c.reuse);
    EXPECT_NE(c.consumer.find('-'), std::string::npos); // <hostname>-<pid>
}

TEST(Config, EnvironmentThenFlagsWin) {
    EnvVar a("INGEST_CONCURRENCY", "3");
    EnvVar b("INGEST_OCR_MODE", "off");
    auto c = load_config({});
    EXPECT_EQ(c.concurrency, 3);
    EXPECT_EQ(c.ocr_mode, "off");
    c = load_config({{"INGEST_CONCURRENCY", "7"}});
    EXPECT_EQ(c.concurrency, 7);
}

TEST(Config, BadValuesNameTheVariable) {
    EnvVar a("INGEST_CONCURRENCY", "abc");
    EXPECT_EQ(error_of({}), "invalid INGEST_CONCURRENCY: expected a positive integer, got \"abc\"");
}

TEST(Config, EveryBadValueIsAnError) {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"INGEST_CONCURRENCY", "0"},
        {"INGEST_CONCURRENCY", "-2"},
        {"INGEST_REDIS_URL", "http://x"},
        {"INGEST_OCR_MODE", "sometimes"},
        {"INGEST_MAX_FILE_BYTES", "10GB"},
        {"INGEST_WEBP_QUALITY", "101"},
        {"INGEST_LOG_FORMAT", "xml"},
        {"INGEST_LOG_LEVEL", "loud"},
        {"INGEST_HTTP_ADDR", "9464"},
        {"INGEST_CLAIM_IDLE_MS", "fast"},
        {"INGEST_STREAM", "has space"},
        {"INGEST_OCR_LANGS", "eng deu"},
        {"INGEST_JOB_TIMEOUT_S", "0"},
        {"INGEST_MAX_DELIVERIES", ""},
        {"INGEST_REUSE", "yes"},
        {"INGEST_GROUP", ""},
        {"INGEST_CONSUMER", "a\tb"},
        {"INGEST_KEY_PREFIX", "a b"},
        {"INGEST_STORAGE_ROOT", ""},
        {"INGEST_MAX_PIXELS", "0"},
        {"INGEST_MAX_PAGES", "10000001"},
        {"INGEST_MAX_OCR_PAGES", "-1"},
        {"INGEST_MAX_TEXT_BYTES", "536870913"},
        {"INGEST_JOB_MEMORY_MB", "63"},
        {"INGEST_CLAIM_IDLE_MS", "99"},
        {"INGEST_SHUTDOWN_GRACE_S", "86401"},
        {"INGEST_HTTP_ADDR", ":80"},

        {"INGEST_MAX_FILE_BYTES", "12345678901234567890"},
    };
    for (const auto& [k, v] : bad) {
        std::string e = error_of({{k, v}});
        EXPECT_NE(e.find("invalid " + k + ":"), std::string::npos) << k << "=" << v << " gave: " << e;
        EXPECT_NE(e.find("\"" + v + "\""), std::string::npos) << e;
    }
}

// Settings are read in the order of settings(): with two bad values, the earlier is named.
TEST(Config, TheFirstBadSettingInTableOrderIsReported) {
    EXPECT_EQ(error_of({{"INGEST_LOG_LEVEL", "loud"}, {"INGEST_CONCURRENCY", "x"}}),
              "invalid INGEST_CONCURRENCY: expected a positive integer, got \"x\"");
    EXPECT_EQ(error_of({{"INGEST_WEBP_QUALITY", "0"}, {"INGEST_MAX_PAGES", "0"}}),
              "invalid INGEST_MAX_PAGES: expected a positive integer, got \"0\"");
}

// The edges of each range are accepted, and every setting lands in its own field.
TEST(Config, RangeEdgesAreAccepted) {
    auto c = load_config({{"INGEST_MAX_OCR_PAGES", "0"},
                          {"INGEST_SHUTDOWN_GRACE_S", "0"},
                          {"INGEST_JOB_MEMORY_MB", "64"},
                          {"INGEST_MAX_TEXT_BYTES", "536870912"},
                          {"INGEST_CLAIM_IDLE_MS", "100"},
                          {"INGEST_WEBP_QUALITY", "100"},
                          {"INGEST_CONCURRENCY", "1024"},
                          {"INGEST_MAX_PAGES", "10000000"},
                          {"INGEST_MAX_PIXELS", "1"},
                          {"INGEST_JOB_TIMEOUT_S", "86400"},
                          {"INGEST_MAX_DELIVERIES", "1"},
                          {"INGEST_HTTP_ADDR", "[::1]:0"},
                          {"INGEST_KEY_PREFIX", ""},
                          {"INGEST_STREAM", "s"},
                          {"INGEST_GROUP", "g"},
                          {"INGEST_CONSUMER", "c"},
                          {"INGEST_STORAGE_ROOT", "/srv/files"},
                          {"INGEST_OCR_MODE", "force"},
                          {"INGEST_LOG_LEVEL", "off"}});
    EXPECT_EQ(c.max_ocr_pages, 0);
    EXPECT_EQ(c.shutdown_grace_s, 0);
    EXPECT_EQ(c.job_memory_mb, 64);
    EXPECT_EQ(c.max_text_bytes, 536870912u);
    EXPECT_EQ(c.claim_idle_ms, 100);
    EXPECT_EQ(c.webp_quality, 100);
    EXPECT_EQ(c.concurrency, 1024);
    EXPECT_EQ(c.max_pages, 10000000);
    EXPECT_EQ(c.max_pixels, 1u);
    EXPECT_EQ(c.job_timeout_s, 86400);
    EXPECT_EQ(c.max_deliveries, 1);
    EXPECT_EQ(c.http_addr, "[::1]:0");
    EXPECT_EQ(c.key_prefix, "");
    EXPECT_EQ(c.stream, "s");
    EXPECT_EQ(c.group, "g");
    EXPECT_EQ(c.consumer, "c");
    EXPECT_EQ(c.storage_root, "/srv/files");
    EXPECT_EQ(c.ocr_mode, "force");
    EXPECT_EQ(c.log_level, "off");
    EXPECT_FALSE(c.redis_url_given);
}

TEST(Config, GoodValues) {
    auto c = load_config({{"INGEST_REDIS_URL", "unix:///tmp/r.sock"},
                          {"INGEST_HTTP_ADDR", "off"},
                          {"INGEST_OCR_LANGS", "eng+deu"},
                          {"INGEST_MAX_FILE_BYTES", "1048576"},
                          {"INGEST_LOG_FORMAT", "json"},
                          {"INGEST_REUSE", "off"}});
    EXPECT_TRUE(c.redis_url_given);
    EXPECT_FALSE(c.reuse);
    EXPECT_EQ(c.http_addr, "off");
    EXPECT_EQ(c.ocr_langs, "eng+deu");
    EXPECT_EQ(c.max_file_bytes, 1048576u);
    EXPECT_EQ(c.log_format, "json");
}

} // namespace

namespace {

// Byte counts take the IEC units --help shows; levels take spdlog's own `warning`; a bad
// token is refused without echoing it.
TEST(Config, ByteUnitsWarningLevelAndToken) {
    auto c = load_config({{"INGEST_MAX_FILE_BYTES", "10GiB"},
                          {"INGEST_MAX_TEXT_BYTES", "512KiB"},
                          {"INGEST_LOG_LEVEL", "warning"},
                          {"INGEST_HTTP_TOKEN", "s3cret"}});
    EXPECT_EQ(c.max_file_bytes, 10ULL << 30);
    EXPECT_EQ(c.max_text_bytes, 512ULL << 10);
    EXPECT_EQ(c.log_level, "warning");
    EXPECT_EQ(c.http_token, "s3cret");
    EXPECT_EQ(load_config({{"INGEST_MAX_FILE_BYTES", "512MiB"}}).max_file_bytes, 512ULL << 20);
    EXPECT_EQ(load_config({{"INGEST_MAX_FILE_BYTES", "100B"}}).max_file_bytes, 100u);
    EXPECT_NE(error_of({{"INGEST_MAX_FILE_BYTES", "10GB"}}).find("10GiB"), std::string::npos);
    EXPECT_NE(error_of({{"INGEST_MAX_FILE_BYTES", "0MiB"}}), "");
    EXPECT_NE(error_of({{"INGEST_MAX_TEXT_BYTES", "1GiB"}}), "");
    EXPECT_NE(error_of({{"INGEST_MAX_FILE_BYTES", "99999999999TiB"}}), "");
    const std::string bad_token = error_of({{"INGEST_HTTP_TOKEN", "two words"}});
    EXPECT_NE(bad_token.find("INGEST_HTTP_TOKEN"), std::string::npos);
    EXPECT_EQ(bad_token.find("two words"), std::string::npos);
}

} // namespace

#include "worker/config/log.hpp"

#include <nlohmann/json.hpp>

#include <spdlog/sinks/stdout_sinks.h>

namespace worker::log {
namespace {

bool g_json = false;

// Fields that hold counts or measures: JSON logs carry them as numbers.
bool is_number(const std::string& key) {
    static const char* const k_counts[] = {"attempts", "concurrency", "in_flight", "pid",  "deliveries", "count",
                                           "left",     "keys",        "removed",   "jobs", "released",   "lines"};
    for (const char* c : k_counts) {
        if (key == c) return true;
    }
    const auto ends_with = [&key](const std::string& suffix) {
        return key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends_with("_ms") || ends_with("_bytes") || ends_with("_s") || ends_with("_pid");
}

} // namespace

void setup(const std::string& format, const std::string& level) {
    g_json = format == "json";
    auto logger = spdlog::stderr_logger_mt("ingestd");
    if (g_json) {
        // The message is already a JSON object; spdlog adds nothing around it.
        logger->set_pattern("%v");
    } else {
        logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
    }
    logger->set_level(spdlog::level::from_str(level));
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
}

void write(spdlog::level::level_enum level, const std::string& message, std::initializer_list<Field> fields) {
    auto logger = spdlog::default_logger_raw();
    if (logger == nullptr || !logger->should_log(level)) return;
    if (g_json) {
        nlohmann::ordered_json j;
        auto now = std::chrono::system_clock::now();
        j["ts"] = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() / 1000.0;
        j["level"] = std::string(spdlog::level::to_string_view(level).data());
        j["msg"] = message;
        for (const auto& [k, v] : fields) {
            if (v.empty()) continue; // a field that does not apply to this event
            if (is_number(k)) {
                try {
                    std::size_t used = 0;
                    const long long n = std::stoll(v, &used);
                    if (used == v.size()) {
                        j[k] = n;
                        continue;
                    }
                } catch (...) {
                }
            }
            j[k] = v;
        }
        logger->log(level, "{}", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    } else {
        std::string line = message;
        for (const auto& [k, v] : fields) {
            if (v.empty()) continue;
            line += ' ';
            line += k;
            line += '=';
            bool quote = v.empty() || v.find_first_of(" \"=") != std::string::npos;
            if (quote) {
                line += '"';
                for (char c : v) {
                    if (c == '"' || c == '\\') line += '\\';
                    line += c;
                }
                line += '"';
            } else {
                line += v;
            }
        }
        logger->log(level, "{}", line);
    }
}

} // namespace worker::log

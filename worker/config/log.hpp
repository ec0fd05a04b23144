#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

namespace worker::log {

/// Sets up the process-wide logger on stderr: "text" or "json" (one object a line).
void setup(const std::string& format, const std::string& level);

using Field = std::pair<const char*, std::string>;

/// Logs `message` with structured fields (`file_id`, `event_id`, `stage`, `duration_ms`...):
/// as `key=value` pairs in text, as members in JSON. Thread-safe.
void write(spdlog::level::level_enum level, const std::string& message, std::initializer_list<Field> fields = {});

inline void info(const std::string& m, std::initializer_list<Field> f = {}) {
    write(spdlog::level::info, m, f);
}
inline void warn(const std::string& m, std::initializer_list<Field> f = {}) {
    write(spdlog::level::warn, m, f);
}
inline void error(const std::string& m, std::initializer_list<Field> f = {}) {
    write(spdlog::level::err, m, f);
}
inline void debug(const std::string& m, std::initializer_list<Field> f = {}) {
    write(spdlog::level::debug, m, f);
}

} // namespace worker::log

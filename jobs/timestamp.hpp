#pragma once

#include <optional>
#include <string>

namespace jobs {

/// RFC 3339 UTC with milliseconds, "2026-12-02T17:30:22.123Z". Thread-safe.
std::string utc_now_rfc3339();

/// Seconds since an RFC 3339 UTC time written by ingestd (utc_now_rfc3339); nullopt when
/// it cannot be read. Thread-safe.
std::optional<double> age_seconds(const std::string& rfc3339);

} // namespace jobs

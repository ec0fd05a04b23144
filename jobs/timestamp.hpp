#pragma once

#include <string>

namespace jobs {

/// RFC 3339 UTC with milliseconds, "2026-12-02T17:30:22.123Z". Thread-safe.
std::string utc_now_rfc3339();

} // namespace jobs

#pragma once

#include <exception>
#include <string>

namespace extractors {

/// The text of a libvips failure `error` (vips::VError, or what a loader threw) as one line
/// for the log: each distinct line once (loaders repeat a warning per strip), joined by
/// "; ", at most 300 bytes, control bytes replaced. Clears libvips's error buffer, which is
/// per process, so that the next file does not inherit it. Never throws.
std::string vips_error_line(const std::exception& error);

} // namespace extractors

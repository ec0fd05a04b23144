#pragma once

#include "thumbnails/result.hpp"

#include <span>
#include <string>

namespace thumbnails {

/// A renderer of one file's thumbnails, which may throw on bad input (vips::VError...).
using RenderFunction = Result (*)(std::span<const unsigned char> bytes, const Options& options);

/// A Result that failed with `code` and the sentence `message`.
Result failure(core::ErrorCode code, std::string message);

/// True when the job's deadline has passed.
bool expired(const Options& options);

/// The `timeout` failure of a thumbnail.
Result timed_out();

/// Runs `render` unless the deadline has passed, turning what it throws into a failure value:
/// `timeout` after the deadline, `memory_limit` when a decoder ran out of memory, else
/// `corrupt_file` naming `what` ("image", "PDF"). Leaves libvips's error buffer empty.
/// std::bad_alloc passes through.
Result guarded(RenderFunction render, std::span<const unsigned char> bytes, const Options& options, const char* what);

} // namespace thumbnails

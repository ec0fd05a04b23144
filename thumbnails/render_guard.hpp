#pragma once

#include "thumbnails/result.hpp"

#include <span>
#include <string>

namespace thumbnails {

/// A renderer of one file's thumbnails, which may throw on bad input (vips::VError...).
using RenderFunction = Result (*)(std::span<const unsigned char> bytes, const Options& options);

/// A Result that failed with `code` and the sentence `message`.
Result failure(core::ErrorCode code, std::string message);

/// A Result that failed with `failed`.
Result failure(core::Failure failed);

/// The failure of a decoder that threw with the library text `detail` while drawing `what`
/// ("image", "PDF"): `timeout` after the deadline, `memory_limit` when it ran out of memory,
/// else `corrupt_file` with a fixed sentence; `detail` goes to the failure's detail (the
/// log), never into the sentence.
Result decode_failure(const char* what, const std::string& detail, const Options& options);

/// True when the job's deadline has passed.
bool expired(const Options& options);

/// The `timeout` failure of a thumbnail.
Result timed_out();

/// Runs `render` unless the deadline has passed, turning what it throws into a failure value:
/// decode_failure(). Leaves libvips's error buffer empty.
/// std::bad_alloc passes through.
Result guarded(RenderFunction render, std::span<const unsigned char> bytes, const Options& options, const char* what);

} // namespace thumbnails

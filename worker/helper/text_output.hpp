#pragma once

#include "worker/pipeline/result.hpp"

#include <string>
#include <string_view>

namespace worker {

/// True when `s` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s);

/// Takes the outputs a helper handed over as files into files of the worker's own: each must
/// be a regular file of the size it declared holding valid UTF-8, and is copied (1 MiB at a
/// time, checked as it goes) into a private spool (worker::open_spool) that the helper cannot
/// change afterwards. Returns the problem ("" when every file output was taken); throws
/// core::FileError (storage_error, transient) when the worker's own spool cannot be written.
std::string adopt_output_files(PipelineResult& result);

} // namespace worker

#pragma once

#include "core/fd.hpp"
#include "worker/helper/settings.hpp"

#include <filesystem>

#include <sys/types.h>

namespace worker {

/// A started helper process and the worker's end of its channel (non-blocking).
struct SpawnedHelper {
    pid_t pid = -1;
    core::Fd channel;
};

/// Starts `settings.binary helper …` with `scratch` as its only writable folder, a clean
/// environment, the channel on descriptor 3, stdout and stderr on a pipe
/// whose lines the worker logs as the helper's (pump_helper_output), default signals and its own
/// process group; does not wait for it to be ready. Throws std::runtime_error when the
/// socket or the process cannot be made.
SpawnedHelper spawn_helper(const HelperSettings& settings, const std::filesystem::path& scratch, int slot = -1);

} // namespace worker

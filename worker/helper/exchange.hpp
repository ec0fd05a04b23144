#pragma once

#include "worker/pipeline/pipeline.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

namespace worker {

/// One job as the worker asked a helper to run it: the input and what its results are
/// checked against. Borrowed values; lives for one call.
struct HelperJob {
    int fd;
    std::uint64_t size;
    const std::string& hash;
    const JobSpec& spec;
    const PipelineOptions& options;
};

/// What a helper said about one job: every step result it sent, each validated.
struct Exchange {
    std::vector<PipelineResult> parts; // validated step results, in arrival order
    std::string content_type;          // from its "typed" message; "" when none came
    std::uint64_t peak_data = 0;       // the highest VmData seen while it worked, bytes
    bool finished = false;             // its last result arrived
    bool killed_for_time = false;      // the hard deadline passed and it was SIGKILLed
    std::string invalid;               // what was wrong with a message; "": nothing
};

/// Reads the helper `pid`'s messages on the non-blocking `sock` after a request, without
/// ever blocking past `hard`: returns on its last result, on an invalid or unexpected
/// message, when it closes the socket, or at `hard` (then it SIGKILLs the helper). Throws
/// core::FileError (transient) when the worker cannot spool a text the helper handed over.
Exchange exchange_messages(pid_t pid, int sock, std::chrono::steady_clock::time_point hard, const HelperJob& job);

} // namespace worker

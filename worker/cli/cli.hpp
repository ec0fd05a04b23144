#pragma once

namespace worker {

/// The whole `ingestd` command line: parses, validates the configuration, runs the
/// command and returns the exit code (0 ok, 1 a file or step failed, 2 usage or
/// configuration, 3 unknown file id). Throws only on bugs.
int run(int argc, char** argv);

} // namespace worker

#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace worker {

/// Start-up settings of a helper process (`ingestd helper`, started only by HelperPool).
struct HelperArgs {
    int channel = 3;                            // the connected socket to the worker
    int parent = 0;                             // the worker's pid: the helper exits when it is gone
    std::filesystem::path scratch;              // the only folder the helper may write (its TMPDIR)
    std::uint64_t memory_mb = 1024;             // INGEST_JOB_MEMORY_MB; RLIMIT_DATA adds k_helper_base_mb
    std::uint64_t max_file_bytes = 10ULL << 30; // INGEST_MAX_FILE_BYTES; RLIMIT_FSIZE follows from it
    std::string preload_langs;                  // Tesseract languages to load before the first job; empty: none
    bool warm = false;                          // run Poppler and the image loaders once before the first job
    std::filesystem::path decode_lock;          // the worker's large-decode gate (decode_gate.hpp); empty: none
    std::filesystem::path thread_share;         // the OCR threads its worker's idle slots lend; empty: none
    int slot = -1;                              // this helper's job slot in the worker (for thread_share)
    bool self_test_sandbox = false;
    std::filesystem::path self_test_outside; // a path outside `scratch` to try to write
    int self_test_port = 0;                  // a loopback TCP port to try to reach
};

/// Memory for the loaded engines and libraries on top of INGEST_JOB_MEMORY_MB.
inline constexpr std::uint64_t k_helper_base_mb = 256;

/// RLIMIT_DATA of a helper whose jobs may use `memory_mb`: that plus k_helper_base_mb, in
/// bytes; 0 (no limit) in sanitizer builds, whose shadow memory counts as data.
inline std::uint64_t helper_data_limit_bytes(std::uint64_t memory_mb) {
#ifdef INGESTD_SANITIZE
    (void)memory_mb;
    return 0;
#else
    return (memory_mb + k_helper_base_mb) << 20;
#endif
}

/// RLIMIT_FSIZE of a helper whose inputs may be `max_file_bytes` long: room for the text of
/// such a file in its scratch folder (a plain text grows at most threefold, each invalid byte
/// becoming U+FFFD), and at least 1 GiB for the parsers' own temporary files.
inline std::uint64_t helper_file_limit_bytes(std::uint64_t max_file_bytes) {
    const std::uint64_t text = max_file_bytes > (UINT64_MAX >> 2) ? UINT64_MAX >> 2 : max_file_bytes * 3 + 1;
    return text > (1ULL << 30) ? text : 1ULL << 30;
}

/// Exit code of a helper that ran out of memory outside a step's own handling.
inline constexpr int k_helper_exit_out_of_memory = 86;

/// The helper's main loop: limits, sandbox, engine preload, then one `analyse` per request
/// until the worker closes the socket. Returns the exit code. With `self_test_sandbox`,
/// applies the sandbox, tries to reach the network and to write outside its folder, prints
/// one JSON line saying what happened, and returns 0.
int run_helper(const HelperArgs& args);

/// main() of ingestd-helper: parses `[helper] --channel N --parent PID --scratch DIR
/// [--memory-mb N] [--max-file-bytes N] [--preload LANGS] [--self-test-sandbox --outside PATH --tcp-port N]`
/// and runs run_helper.
int helper_main(int argc, char** argv);

} // namespace worker

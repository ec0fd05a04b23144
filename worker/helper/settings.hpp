#pragma once

#include "worker/config/config.hpp"
#include "worker/helper/thread_share.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace worker {

/// `ingestd-helper` in the folder of the running executable: the parser process, the only
/// binary that links libvips, Poppler and Tesseract (the worker starts faster without them).
std::string helper_binary();

/// How helpers are started and bounded.
struct HelperSettings {
    std::string binary = helper_binary();        // ingestd-helper
    std::uint64_t memory_mb = 1024;              // INGEST_JOB_MEMORY_MB
    std::uint64_t max_file_bytes = 10ULL << 30;  // INGEST_MAX_FILE_BYTES: bounds the helper's scratch files
    std::string preload_langs;                   // Tesseract languages to load at start; empty: none
    bool warm_parsers = false;                   // run Poppler and every image loader once at start
    std::string decode_lock;                     // the file a worker's helpers flock for a large decode; empty: none
    std::shared_ptr<ThreadShare> thread_share;   // the OCR threads its idle slots lend; null: none
    std::string thread_share_path;               // its file, which helpers map
    int max_jobs = 5000;                         // recycle after this many files (the RSS mark usually comes first)
    std::uint64_t rss_mark_bytes = 256ULL << 20; // recycle when resident memory is above it
    std::chrono::milliseconds kill_grace{2000};  // after the job's deadline, before SIGKILL
    std::chrono::milliseconds start_timeout{60000};
    std::function<void()> on_crash; // called for each helper that died during a job
    /// Called each time a helper is started again after one stopped during a job, with why:
    /// the failure code it ended with (crashed, timeout, memory_limit) or "start_failed".
    std::function<void(const std::string& reason)> on_restart;

    /// The settings of a worker's helpers: its memory budget and OCR languages, warm parsers.
    static HelperSettings from(const Config& config);
};

} // namespace worker

#pragma once

#include <filesystem>

namespace worker {

/// Lets this helper's long scans borrow the OCR threads its worker's idle slots leave
/// (extractors::set_thread_lender over the worker's ThreadShare file, as helper `slot`).
/// Called before the sandbox; returns false when the file cannot be mapped (the helper's
/// jobs then read with the threads each was given).
bool lend_threads_from(const std::filesystem::path& share, int slot);

} // namespace worker

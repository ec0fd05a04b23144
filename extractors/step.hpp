#pragma once

#include "core/error_code.hpp"
#include "core/fd.hpp"
#include "core/options.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace extractors {

/// A step's failure on the file's content: a spec error code (`corrupt_file`,
/// `encrypted_pdf`, `too_many_pixels`, `timeout`, `memory_limit`, `crashed`) and one
/// readable sentence.
using StepError = core::Failure;

/// True when a decoder's error message says it ran out of memory (libjpeg's "Insufficient
/// memory", glib's and libvips's "out of memory", libpng's "Out of memory"...). Under the
/// helper's RLIMIT_DATA that is the job's memory budget, not a damaged file.
inline bool is_out_of_memory_message(std::string_view message) {
    std::string lower(message);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    for (const char* sign : {"insufficient memory", "out of memory", "cannot allocate", "can't allocate",
                             "memory allocation failed", "failed to allocate", "not enough memory", "bad_alloc"}) {
        if (lower.find(sign) != std::string::npos) return true;
    }
    return false;
}

/// The memory_limit failure of a decoder that ran out of memory; the decoder's own message
/// is the failure's `detail` (for the log).
inline StepError memory_limit_error(std::string_view what, std::string_view detail) {
    return StepError{core::ErrorCode::memory_limit,
                     "The " + std::string(what) +
                         " needs more memory than the job's budget (INGEST_JOB_MEMORY_MB) allows.",
                     std::string(detail)};
}

using OcrMode = core::OcrMode;

/// What the text extractors need to know: the one options value (core/options.hpp).
using TextOptions = core::Options;

/// The outcome of text extraction of one file. `error` set means the step failed;
/// `text` may still hold what was read before the failure (a timeout keeps pages done).
struct TextResult {
    std::optional<StepError> error;
    std::string text; // the whole text, valid UTF-8, cleaned; with `spill`, only its first bytes
    /// A text too long to keep in memory (TextSink): the whole of it in an unlinked file,
    /// from offset 0, `spill_bytes` long. Empty when `text` is the whole text.
    std::shared_ptr<core::Fd> spill;
    std::uint64_t spill_bytes = 0;
    std::string method; // "text_layer", "ocr", "mixed", "plain"
    std::optional<int> page_count;
    std::optional<int> pages_read; // only when fewer than page_count were read
    std::optional<int> ocr_pages;
    std::optional<double> ocr_confidence; // mean word confidence 0-100
};

} // namespace extractors

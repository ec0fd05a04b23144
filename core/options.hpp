#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace core {

/// INGEST_OCR_MODE: `auto` OCRs images and PDF pages without a text layer, `force` every
/// page, `off` none.
enum class OcrMode { automatic, force, off };

/// "auto", "force", "off".
std::string_view to_string(OcrMode mode);
/// The mode named `text`, or nullopt.
std::optional<OcrMode> parse_ocr_mode(std::string_view text);

// Every limit and setting that one file's processing needs, listed once: the struct below,
// the helper wire (worker/helper/channel.cpp) and the tests that cross it are generated from
// this list. A new limit is one row here and its INGEST_* row in worker/config.
//   X(type, name, default)
#define INGESTD_OPTION_FIELDS(X)                                                                                       \
    X(core::OcrMode, ocr_mode, core::OcrMode::automatic)                                                               \
    X(std::string, ocr_langs, "eng")          /* Tesseract languages, "eng+deu" */                                     \
    X(int, max_pages, 2000)                   /* PDF pages read for text */                                            \
    X(int, max_ocr_pages, 100)                /* pages (PDF or TIFF) sent to OCR */                                    \
    X(std::uint64_t, max_pixels, 100000000)   /* images above it: too_many_pixels */                                   \
    X(std::uint64_t, max_text_bytes, 1048576) /* text kept inline in metadata */                                       \
    X(int, webp_quality, 80)                                                                                           \
    X(int, pdf_threads, 1)                          /* threads reading one PDF's text layer (same output) */           \
    X(int, ocr_threads, 1)                          /* threads OCR'ing one PDF's or TIFF's pages (same output) */      \
    X(int, max_zip_entries, 10000)                  /* entries of a zip-based document */                              \
    X(std::uint64_t, max_unpacked_bytes, 268435456) /* a document's parts, unpacked: too_large_unpacked */             \
    X(int, max_compression_ratio, 200)              /* unpacked/packed of one part above 1 MiB */                      \
    X(int, max_xml_depth, 256)                      /* element nesting of a document's XML or HTML */

/// The one options value carried from the configuration through the pipeline and the
/// helper wire to the extractors and the thumbnailer. Plain values; copy freely.
struct Options {
#define INGESTD_OPTION_MEMBER(type, name, value) type name = value;
    INGESTD_OPTION_FIELDS(INGESTD_OPTION_MEMBER)
#undef INGESTD_OPTION_MEMBER
    /// The job's wall-clock end (INGEST_JOB_TIMEOUT_S from the job's start); per job, so not
    /// a row above: the wire carries the time remaining.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

} // namespace core

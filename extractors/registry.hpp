#pragma once

#include "extractors/step.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <shared_mutex>
#include <span>
#include <string>

namespace extractors {

/// One row of the registry: a text extractor and the content types it reads. A new format
/// is one file with its extract function and one row.
struct Extractor {
    /// The row's name in logs and tests ("pdf_text", "image_ocr", "plain_text").
    std::string name;
    /// True when the extractor reads files of the type `mime` detected from the bytes.
    std::function<bool(const std::string& mime)> accepts;
    /// The text of one whole file. Never throws for bad content (the failure is in
    /// TextResult::error); std::bad_alloc passes through.
    std::function<TextResult(std::span<const unsigned char> bytes, const std::string& mime, const TextOptions& options)>
        extract;
    /// False when the options turn the extractor off (image OCR with INGEST_OCR_MODE=off):
    /// the step is then not_applicable. Empty: always on.
    std::function<bool(const TextOptions& options)> enabled;
    /// The text of one whole file read from its descriptor (`size` bytes from offset 0) in
    /// pieces, for formats that can be streamed with bounded memory; when set, analyse()
    /// calls it instead of `extract` and maps nothing. Same failure contract as `extract`.
    std::function<TextResult(int fd, std::uint64_t size, const std::string& mime, const TextOptions& options)>
        extract_file;

    /// True when the row runs under `options`.
    bool runs_with(const TextOptions& options) const { return !enabled || enabled(options); }
};

/// Content type -> text extractor. Rows are consulted in the order they were added; the
/// first that accepts a type is its extractor. Thread-safe; rows are never removed, so a
/// found row stays valid for the registry's life.
class Registry {
public:
    /// Appends a row (its `accepts` and `extract` must be set; throws std::invalid_argument
    /// otherwise).
    void add(Extractor row);

    /// The first row that accepts `mime`, or nullptr when no extractor reads that type.
    const Extractor* find(const std::string& mime) const;

private:
    mutable std::shared_mutex m_mutex;
    std::deque<Extractor> m_rows; // a deque: adding a row moves none of the others
};

/// The process's registry, which analyse() uses: the built-in rows (PDF text layer, image
/// OCR, plain text, each keyed by extractors::kind_of) and any row added at run time.
Registry& registry();

/// registry().find(mime): the text extractor of a detected type, or nullptr.
const Extractor* find_extractor(const std::string& mime);

} // namespace extractors

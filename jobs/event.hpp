#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jobs {

/// One upload event as read from the stream, validated.
/// The longest `name`, `owner` or `content_type` an event may carry (bytes); a longer one
/// makes the event invalid_event and is never stored.
inline constexpr std::size_t k_max_text_field_bytes = 1024;

struct Event {
    std::string entry_id; // the stream entry id, "1700000000000-0"
    std::string file_id;
    std::string storage_key;
    std::string declared_content_type;
    std::optional<std::uint64_t> size;
    std::string sha256; // lowercase hex, empty when not given
    std::string name;
    std::string owner;
    bool step_text = true;
    bool step_thumbnails = true;
    std::string steps;      // as given, normalised ("text,thumbnails")
    std::string ocr_langs;  // Tesseract languages for this file ("eng+deu"); empty: INGEST_OCR_LANGS
    bool is_delete = false; // `op=delete`: only file_id (and an optional storage_key) matter
};

/// What the consumer does with an entry.
struct ParsedEntry {
    enum class Verdict {
        ok,            // `event` is valid
        dead_letter,   // no valid file_id: goes to the dead-letter stream
        invalid_event, // valid file_id, bad other fields: ends failed/invalid_event
    };
    Verdict verdict = Verdict::ok;
    Event event;        // file_id set whenever verdict != dead_letter
    std::string reason; // one readable sentence when not ok
};

/// Validates a stream entry's flat fields as the spec says; unknown fields are ignored.
/// Never throws. Thread-safe.
ParsedEntry parse_event(const std::string& entry_id, const std::vector<std::pair<std::string, std::string>>& fields);

/// True when `id` matches `[A-Za-z0-9][A-Za-z0-9._:-]{0,127}`.
bool valid_file_id(const std::string& id);

/// Empty when `key` is a valid storage key, else the reason it is not.
std::string storage_key_problem(const std::string& key);

} // namespace jobs

#include "jobs/event.hpp"

#include <cctype>

namespace jobs {
namespace {

bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool parse_u64(const std::string& s, std::uint64_t& out) {
    if (s.empty() || s.size() > 20) return false;
    std::uint64_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    out = v;
    return true;
}

} // namespace

bool valid_file_id(const std::string& id) {
    if (id.empty() || id.size() > 128 || !is_alnum(id[0])) return false;
    for (char c : id) {
        if (!is_alnum(c) && c != '.' && c != '_' && c != ':' && c != '-') return false;
    }
    return true;
}

std::string storage_key_problem(const std::string& key) {
    if (key.empty()) return "storage_key is empty";
    if (key.size() > 1024) return "storage_key is longer than 1024 bytes";
    if (key[0] == '/') return "storage_key is absolute";
    std::size_t start = 0;
    while (start <= key.size()) {
        std::size_t end = key.find('/', start);
        if (end == std::string::npos) end = key.size();
        std::string segment = key.substr(start, end - start);
        if (segment.empty()) return "storage_key has an empty segment";
        if (segment == "." || segment == "..") return "storage_key has a \"" + segment + "\" segment";
        for (char c : segment) {
            if (!is_alnum(c) && c != '.' && c != '_' && c != '-') {
                return "storage_key has a character outside [A-Za-z0-9._-]";
            }
        }
        start = end + 1;
    }
    return {};
}

namespace {

// The event's fields as given: the first occurrence of each wins, as with HSET semantics
// read back by XRANGE.
struct RawFields {
    const std::string* file_id = nullptr;
    const std::string* storage_key = nullptr;
    const std::string* size = nullptr;
    const std::string* sha256 = nullptr;
    const std::string* steps = nullptr;
    const std::string* content_type = nullptr;
    const std::string* name = nullptr;
    const std::string* owner = nullptr;
    const std::string* op = nullptr;
    const std::string* ocr_langs = nullptr;
};

RawFields collect_fields(const std::vector<std::pair<std::string, std::string>>& fields) {
    RawFields raw;
    const std::pair<const char*, const std::string * RawFields::*> rows[] = {
        {"file_id", &RawFields::file_id}, {"storage_key", &RawFields::storage_key},
        {"size", &RawFields::size},       {"sha256", &RawFields::sha256},
        {"steps", &RawFields::steps},     {"content_type", &RawFields::content_type},
        {"name", &RawFields::name},       {"owner", &RawFields::owner},
        {"op", &RawFields::op},           {"ocr_langs", &RawFields::ocr_langs},
    };
    for (const auto& [key, value] : fields) {
        for (const auto& [name, member] : rows) {
            if (key == name && raw.*member == nullptr) raw.*member = &value;
        }
    }
    return raw;
}

// Empty when `given` is 64 hexadecimal digits (lowercased into `out`), else the reason.
std::string sha256_problem(const std::string& given, std::string& out) {
    out.clear();
    for (char c : given) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    bool hex = out.size() == 64;
    for (char c : out) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    return hex ? std::string{} : "The sha256 field is not 64 hexadecimal digits.";
}

std::string trimmed(std::string item) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    return item;
}

// Empty when `steps` is a comma-separated list of known steps (set on `event`), else the reason.
std::string steps_problem(const std::string& steps, Event& event) {
    bool text = false, thumbs = false;
    std::size_t start = 0;
    while (start <= steps.size()) {
        std::size_t end = steps.find(',', start);
        if (end == std::string::npos) end = steps.size();
        std::string item = trimmed(steps.substr(start, end - start));
        if (item == "text")
            text = true;
        else if (item == "thumbnails")
            thumbs = true;
        else if (!item.empty())
            return "The steps field names an unknown step \"" + item + "\".";
        start = end + 1;
    }
    if (!text && !thumbs) return "The steps field names no step.";
    event.step_text = text;
    event.step_thumbnails = thumbs;
    return {};
}

// Empty when `langs` is Tesseract language names ([a-z0-9_], at most 32 characters) joined
// by '+', at most 8 of them; else the reason. Whether their data is installed is the
// worker's check (jobs/ does not know where language data is).
std::string ocr_langs_problem(const std::string& langs) {
    const std::string bad = "The ocr_langs field \"" + langs.substr(0, 64) +
                            "\" is not a list of Tesseract languages such as eng or eng+deu.";
    int count = 0;
    std::size_t start = 0;
    while (start <= langs.size()) {
        std::size_t end = langs.find('+', start);
        if (end == std::string::npos) end = langs.size();
        const std::size_t len = end - start;
        if (len == 0 || len > 32 || ++count > 8) return bad;
        for (std::size_t i = start; i < end; ++i) {
            const char c = langs[i];
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return bad;
        }
        start = end + 1;
    }
    return {};
}

// Empty when the fields after file_id are valid (copied onto `event`), else the reason.
std::string fields_problem(const RawFields& raw, Event& event) {
    if (raw.storage_key == nullptr) return "The event has no storage_key field.";
    if (auto problem = storage_key_problem(*raw.storage_key); !problem.empty()) {
        problem[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(problem[0])));
        return problem + ".";
    }
    event.storage_key = *raw.storage_key;
    if (raw.size != nullptr) {
        std::uint64_t v = 0;
        if (!parse_u64(*raw.size, v)) return "The size field is not a byte count.";
        event.size = v;
    }
    if (raw.sha256 != nullptr) {
        if (auto problem = sha256_problem(*raw.sha256, event.sha256); !problem.empty()) return problem;
    }
    if (raw.steps != nullptr) {
        if (auto problem = steps_problem(*raw.steps, event); !problem.empty()) return problem;
    }
    if (raw.ocr_langs != nullptr) {
        if (auto problem = ocr_langs_problem(*raw.ocr_langs); !problem.empty()) return problem;
        event.ocr_langs = *raw.ocr_langs;
    }
    event.steps =
        event.step_text && event.step_thumbnails ? "text,thumbnails" : (event.step_text ? "text" : "thumbnails");
    return {};
}

// Copies content_type, name and owner onto `event` when within k_max_text_field_bytes;
// returns the name of the first one over it ("" when none is).
std::string copy_capped(const RawFields& raw, Event& event) {
    const std::pair<const char*, std::pair<const std::string*, std::string*>> rows[] = {
        {"name", {raw.name, &event.name}},
        {"owner", {raw.owner, &event.owner}},
        {"content_type", {raw.content_type, &event.declared_content_type}},
    };
    std::string first;
    for (const auto& [field, from_to] : rows) {
        const auto [from, to] = from_to;
        if (from == nullptr) continue;
        if (from->size() <= k_max_text_field_bytes) {
            *to = *from;
        } else if (first.empty()) {
            first = field;
        }
    }
    return first;
}

} // namespace

ParsedEntry parse_event(const std::string& entry_id, const std::vector<std::pair<std::string, std::string>>& fields) {
    ParsedEntry out;
    out.event.entry_id = entry_id;
    const RawFields raw = collect_fields(fields);
    if (raw.file_id == nullptr || !valid_file_id(*raw.file_id)) {
        out.verdict = ParsedEntry::Verdict::dead_letter;
        out.reason = raw.file_id == nullptr ? "the event has no file_id field"
                                            : "the file_id is not [A-Za-z0-9][A-Za-z0-9._:-]{0,127}";
        return out;
    }
    out.event.file_id = *raw.file_id;
    // Kept even when another field is invalid (the failed file still shows its name and
    // owner), unless over the cap: those are never stored.
    const std::string too_long = copy_capped(raw, out.event);
    if (raw.op != nullptr && *raw.op != "process" && *raw.op != "delete") {
        out.verdict = ParsedEntry::Verdict::invalid_event;
        out.reason = "The op field is neither process nor delete.";
        return out;
    }
    if (raw.op != nullptr && *raw.op == "delete") {
        // A delete needs only the file id; a valid storage_key is kept for the garbage collector.
        out.event.is_delete = true;
        if (raw.storage_key != nullptr && storage_key_problem(*raw.storage_key).empty()) {
            out.event.storage_key = *raw.storage_key;
        }
        return out;
    }
    if (!too_long.empty()) {
        out.verdict = ParsedEntry::Verdict::invalid_event;
        out.reason = "The " + too_long + " field is longer than " + std::to_string(k_max_text_field_bytes) + " bytes.";
        return out;
    }
    if (auto problem = fields_problem(raw, out.event); !problem.empty()) {
        out.verdict = ParsedEntry::Verdict::invalid_event;
        out.reason = std::move(problem);
    }
    return out;
}

} // namespace jobs

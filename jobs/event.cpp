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

ParsedEntry parse_event(const std::string& entry_id, const std::vector<std::pair<std::string, std::string>>& fields) {
    ParsedEntry out;
    out.event.entry_id = entry_id;
    const std::string* file_id = nullptr;
    const std::string* storage_key = nullptr;
    const std::string* size = nullptr;
    const std::string* sha = nullptr;
    const std::string* steps = nullptr;
    // The first occurrence of a field wins, as with HSET semantics read back by XRANGE.
    for (const auto& [k, v] : fields) {
        if (k == "file_id" && !file_id)
            file_id = &v;
        else if (k == "storage_key" && !storage_key)
            storage_key = &v;
        else if (k == "size" && !size)
            size = &v;
        else if (k == "sha256" && !sha)
            sha = &v;
        else if (k == "steps" && !steps)
            steps = &v;
        else if (k == "content_type" && out.event.declared_content_type.empty())
            out.event.declared_content_type = v;
        else if (k == "name" && out.event.name.empty())
            out.event.name = v;
        else if (k == "owner" && out.event.owner.empty())
            out.event.owner = v;
    }
    if (file_id == nullptr) {
        out.verdict = ParsedEntry::Verdict::dead_letter;
        out.reason = "the event has no file_id field";
        return out;
    }
    if (!valid_file_id(*file_id)) {
        out.verdict = ParsedEntry::Verdict::dead_letter;
        out.reason = "the file_id is not [A-Za-z0-9][A-Za-z0-9._:-]{0,127}";
        return out;
    }
    out.event.file_id = *file_id;
    auto invalid = [&](std::string reason) {
        out.verdict = ParsedEntry::Verdict::invalid_event;
        out.reason = std::move(reason);
        return out;
    };
    if (storage_key == nullptr) return invalid("The event has no storage_key field.");
    if (auto problem = storage_key_problem(*storage_key); !problem.empty()) {
        problem[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(problem[0])));
        return invalid(problem + ".");
    }
    out.event.storage_key = *storage_key;
    if (size != nullptr) {
        std::uint64_t v = 0;
        if (!parse_u64(*size, v)) return invalid("The size field is not a byte count.");
        out.event.size = v;
    }
    if (sha != nullptr) {
        std::string lower;
        for (char c : *sha) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        bool hex = lower.size() == 64;
        for (char c : lower) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
        if (!hex) return invalid("The sha256 field is not 64 hexadecimal digits.");
        out.event.sha256 = lower;
    }
    if (steps != nullptr) {
        bool text = false, thumbs = false;
        std::size_t start = 0;
        const std::string& s = *steps;
        while (start <= s.size()) {
            std::size_t end = s.find(',', start);
            if (end == std::string::npos) end = s.size();
            std::string item = s.substr(start, end - start);
            while (!item.empty() && item.front() == ' ') item.erase(item.begin());
            while (!item.empty() && item.back() == ' ') item.pop_back();
            if (item == "text")
                text = true;
            else if (item == "thumbnails")
                thumbs = true;
            else if (!item.empty())
                return invalid("The steps field names an unknown step \"" + item + "\".");
            start = end + 1;
        }
        if (!text && !thumbs) return invalid("The steps field names no step.");
        out.event.step_text = text;
        out.event.step_thumbnails = thumbs;
    }
    out.event.steps = out.event.step_text && out.event.step_thumbnails ? "text,thumbnails"
                                                                       : (out.event.step_text ? "text" : "thumbnails");
    return out;
}

} // namespace jobs

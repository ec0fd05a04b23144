#include "tests/support/prom_text.hpp"

#include <cmath>
#include <regex>
#include <set>
#include <sstream>

namespace testsupport {

namespace {

const std::regex k_name(R"([a-zA-Z_:][a-zA-Z0-9_:]*)");
const std::regex k_label_name(R"([a-zA-Z_][a-zA-Z0-9_]*)");

bool parse_value(const std::string& s, double& out) {
    if (s == "+Inf" || s == "Inf") return out = INFINITY, true;
    if (s == "-Inf") return out = -INFINITY, true;
    if (s == "NaN") return out = NAN, true;
    if (s.empty()) return false;
    std::size_t used = 0;
    try {
        out = std::stod(s, &used);
    } catch (...) {
        return false;
    }
    return used == s.size();
}

// The family a sample name belongs to, given the TYPE lines seen.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    if (types.count(name)) return name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        std::string s(suffix);
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
            std::string base = name.substr(0, name.size() - s.size());
            auto it = types.find(base);
            if (it != types.end() && (it->second == "histogram" || it->second == "summary")) return base;
        }
    }
    return {};
}

constexpr std::size_t k_bad = std::string::npos;

// Reads a quoted label value whose first character is line[j]; returns the index of the
// closing quote, or k_bad when an escape is unknown or the quote never closes.
std::size_t read_label_value(const std::string& line, std::size_t j, std::string& value) {
    for (; j < line.size(); ++j) {
        if (line[j] == '"') return j;
        if (line[j] != '\\') {
            value += line[j];
            continue;
        }
        if (j + 1 >= line.size()) return k_bad;
        const char e = line[++j];
        if (e == 'n') {
            value += '\n';
        } else if (e == '\\' || e == '"') {
            value += e;
        } else {
            return k_bad;
        }
    }
    return k_bad;
}

// Reads `{name="value",...}` where line[i] is '{'; returns the index after '}', or k_bad when
// the label set is malformed or names a label twice.
std::size_t read_labels(const std::string& line, std::size_t i, std::map<std::string, std::string>& labels) {
    ++i;
    while (i < line.size() && line[i] != '}') {
        const std::size_t eq = line.find('=', i);
        if (eq == k_bad) return k_bad;
        const std::string label = line.substr(i, eq - i);
        if (!std::regex_match(label, k_label_name) || eq + 1 >= line.size() || line[eq + 1] != '"') return k_bad;
        std::string value;
        const std::size_t close = read_label_value(line, eq + 2, value);
        if (close == k_bad || labels.count(label)) return k_bad;
        labels[label] = value;
        i = close + 1;
        if (i < line.size() && line[i] == ',') ++i;
    }
    return i < line.size() && line[i] == '}' ? i + 1 : k_bad;
}

// One pass over an exposition: the state that spans lines (families seen, series seen).
class Reader {
public:
    PromText out;

    void error(int line, const std::string& what) {
        out.errors.push_back("line " + std::to_string(line) + ": " + what);
    }
    void comment(const std::string& line, int n);
    void sample(const std::string& line, int n);
    void check_histogram(const std::string& family);

private:
    std::set<std::string> m_closed; // families whose samples are over
    std::string m_current;          // family of the previous line
    std::set<std::string> m_series; // name + labels seen
    std::set<std::string> m_helped;

    void enter(const std::string& family, int at) {
        if (family == m_current) return;
        if (!m_current.empty()) m_closed.insert(m_current);
        if (m_closed.count(family)) error(at, "family " + family + " is split or repeated");
        m_current = family;
    }
};

void Reader::comment(const std::string& line, int n) {
    std::istringstream words(line);
    std::string hash, kind, name, rest;
    words >> hash >> kind >> name;
    if (kind != "HELP" && kind != "TYPE") return; // a plain comment
    if (!std::regex_match(name, k_name)) return error(n, "bad metric name '" + name + "'");
    enter(name, n);
    if (kind == "HELP") {
        if (!m_helped.insert(name).second) error(n, "second HELP for " + name);
        return;
    }
    std::getline(words >> std::ws, rest);
    static const std::set<std::string> kinds = {"counter", "gauge", "histogram", "summary", "untyped"};
    if (!kinds.count(rest)) error(n, "unknown type '" + rest + "'");
    if (out.types.count(name)) error(n, "second TYPE for " + name);
    bool had_samples = false;
    for (const auto& s : out.samples) had_samples |= family_of(s.name, {{name, rest}}) == name;
    if (had_samples) error(n, "TYPE after samples of " + name);
    out.types[name] = rest;
    if (rest == "counter" && (name.size() < 6 || name.compare(name.size() - 6, 6, "_total") != 0)) {
        error(n, "counter " + name + " does not end in _total");
    }
}

// name{label="value",...} value [timestamp]
void Reader::sample(const std::string& line, int n) {
    PromText::Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
    s.name = line.substr(0, i);
    if (!std::regex_match(s.name, k_name)) return error(n, "bad metric name '" + s.name + "'");
    if (i < line.size() && line[i] == '{') i = read_labels(line, i, s.labels);
    if (i == k_bad || i >= line.size() || line[i] != ' ') return error(n, "malformed sample: " + line);
    std::istringstream rest(line.substr(i + 1));
    std::string value, timestamp, extra;
    rest >> value >> timestamp >> extra;
    if (!parse_value(value, s.value) || !extra.empty()) return error(n, "bad value in: " + line);
    const std::string family = family_of(s.name, out.types);
    if (family.empty()) return error(n, s.name + " has no TYPE line before it");
    enter(family, n);
    std::string key = s.name + "{";
    for (const auto& [k, v] : s.labels) key += k + "=\"" + v + "\",";
    if (!m_series.insert(key).second) error(n, "duplicate series " + key + "}");
    out.samples.push_back(std::move(s));
}

// Per label set (le aside): buckets increasing in le, cumulative, the +Inf one equal to _count.
void Reader::check_histogram(const std::string& family) {
    std::map<std::map<std::string, std::string>, std::vector<std::pair<double, double>>> buckets;
    std::map<std::map<std::string, std::string>, double> counts;
    for (const auto& s : out.samples) {
        auto labels = s.labels;
        if (s.name == family + "_bucket") {
            double le = 0;
            if (!labels.count("le") || !parse_value(labels["le"], le)) {
                error(0, family + "_bucket without a valid le");
                continue;
            }
            labels.erase("le");
            buckets[labels].push_back({le, s.value});
        } else if (s.name == family + "_count") {
            counts[labels] = s.value;
        }
    }
    for (const auto& [labels, list] : buckets) {
        for (std::size_t k = 1; k < list.size(); ++k) {
            if (!(list[k].first > list[k - 1].first)) error(0, family + ": le not increasing");
            if (list[k].second < list[k - 1].second) error(0, family + ": buckets not cumulative");
        }
        if (list.empty() || !std::isinf(list.back().first)) {
            error(0, family + ": no +Inf bucket");
        } else if (!counts.count(labels) || counts.at(labels) != list.back().second) {
            error(0, family + ": +Inf bucket differs from _count");
        }
    }
}

} // namespace

PromText parse_prometheus_text(const std::string& text) {
    Reader r;
    if (!text.empty() && text.back() != '\n') r.error(0, "the exposition does not end with a newline");
    std::istringstream in(text);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        if (line.empty()) continue;
        if (line[0] == '#') {
            r.comment(line, n);
        } else {
            r.sample(line, n);
        }
    }
    for (const auto& [family, type] : r.out.types) {
        if (type == "histogram") r.check_histogram(family);
    }
    return std::move(r.out);
}

} // namespace testsupport

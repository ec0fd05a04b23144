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

} // namespace

PromText parse_prometheus_text(const std::string& text) {
    PromText out;
    auto error = [&](int line, const std::string& what) {
        out.errors.push_back("line " + std::to_string(line) + ": " + what);
    };
    if (!text.empty() && text.back() != '\n') error(0, "the exposition does not end with a newline");

    std::set<std::string> closed; // families whose samples are over
    std::string current;          // family of the previous line
    std::set<std::string> series; // name + labels seen
    std::set<std::string> helped;
    std::istringstream in(text);
    std::string line;
    int n = 0;
    auto enter = [&](const std::string& family, int at) {
        if (family == current) return;
        if (!current.empty()) closed.insert(current);
        if (closed.count(family)) error(at, "family " + family + " is split or repeated");
        current = family;
    };
    while (std::getline(in, line)) {
        ++n;
        if (line.empty()) continue;
        if (line[0] == '#') {
            std::istringstream words(line);
            std::string hash, kind, name, rest;
            words >> hash >> kind >> name;
            if (kind != "HELP" && kind != "TYPE") continue; // a plain comment
            if (!std::regex_match(name, k_name)) {
                error(n, "bad metric name '" + name + "'");
                continue;
            }
            enter(name, n);
            if (kind == "HELP") {
                if (!helped.insert(name).second) error(n, "second HELP for " + name);
                continue;
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
            continue;
        }
        // name{label="value",...} value [timestamp]
        PromText::Sample s;
        std::size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
        s.name = line.substr(0, i);
        if (!std::regex_match(s.name, k_name)) {
            error(n, "bad metric name '" + s.name + "'");
            continue;
        }
        bool ok = true;
        if (i < line.size() && line[i] == '{') {
            ++i;
            while (ok && i < line.size() && line[i] != '}') {
                std::size_t eq = line.find('=', i);
                if (eq == std::string::npos) {
                    ok = false;
                    break;
                }
                std::string label = line.substr(i, eq - i);
                if (!std::regex_match(label, k_label_name) || eq + 1 >= line.size() || line[eq + 1] != '"') {
                    ok = false;
                    break;
                }
                std::string value;
                std::size_t j = eq + 2;
                bool closed_quote = false;
                for (; j < line.size(); ++j) {
                    if (line[j] == '\\') {
                        if (j + 1 >= line.size()) break;
                        char e = line[++j];
                        if (e == 'n')
                            value += '\n';
                        else if (e == '\\' || e == '"')
                            value += e;
                        else
                            ok = false;
                    } else if (line[j] == '"') {
                        closed_quote = true;
                        break;
                    } else {
                        value += line[j];
                    }
                }
                if (!closed_quote) ok = false;
                if (!ok) break;
                if (s.labels.count(label)) ok = false;
                s.labels[label] = value;
                i = j + 1;
                if (i < line.size() && line[i] == ',') ++i;
            }
            if (i >= line.size() || line[i] != '}') ok = false;
            ++i;
        }
        if (!ok || i >= line.size() || line[i] != ' ') {
            error(n, "malformed sample: " + line);
            continue;
        }
        std::istringstream rest(line.substr(i + 1));
        std::string value, timestamp, extra;
        rest >> value >> timestamp >> extra;
        if (!parse_value(value, s.value) || !extra.empty()) {
            error(n, "bad value in: " + line);
            continue;
        }
        std::string family = family_of(s.name, out.types);
        if (family.empty()) {
            error(n, s.name + " has no TYPE line before it");
            continue;
        }
        enter(family, n);
        std::string key = s.name + "{";
        for (const auto& [k, v] : s.labels) key += k + "=\"" + v + "\",";
        if (!series.insert(key).second) error(n, "duplicate series " + key + "}");
        out.samples.push_back(std::move(s));
    }

    // Histograms: per label set (le aside), buckets increasing in le, cumulative, +Inf == _count.
    for (const auto& [family, type] : out.types) {
        if (type != "histogram") continue;
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
            } else if (!counts.count(labels) || counts[labels] != list.back().second) {
                error(0, family + ": +Inf bucket differs from _count");
            }
        }
    }
    return out;
}

} // namespace testsupport

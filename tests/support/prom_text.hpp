#pragma once

#include <map>
#include <string>
#include <vector>

namespace testsupport {

/// A strict reading of the Prometheus text exposition format 0.0.4, for tests: what the
/// Prometheus parser would refuse, and the conventions promtool's `check metrics` lints
/// (counters end in _total, histograms have cumulative buckets ending in +Inf that equal
/// _count, each family once with its TYPE before its samples, no duplicate series).
struct PromText {
    struct Sample {
        std::string name;
        std::map<std::string, std::string> labels;
        double value = 0;
    };
    std::map<std::string, std::string> types; ///< family -> counter, gauge, histogram, ...
    std::vector<Sample> samples;
    std::vector<std::string> errors; ///< "line N: what is wrong"
};

/// Parses `text` strictly; every departure from the format or its conventions is an entry in
/// `errors` (never throws).
PromText parse_prometheus_text(const std::string& text);

} // namespace testsupport

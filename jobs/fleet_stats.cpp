#include "jobs/fleet_stats.hpp"

#include "jobs/metadata.hpp"

#include <chrono>

namespace jobs {
namespace {

std::string failures_key(const QueueNames& names) {
    return names.prefix + "failures:" + names.group;
}

} // namespace

std::vector<MinuteActivity> read_fleet_activity(Redis& redis, const QueueNames& names, int minutes, int max_entries) {
    using namespace std::chrono;
    const long long now_min = duration_cast<std::chrono::minutes>(system_clock::now().time_since_epoch()).count();
    const long long first = now_min - minutes + 1;
    std::vector<MinuteActivity> out;
    for (long long m = first; m <= now_min; ++m) out.push_back({m * 60, 0, 0});
    const Reply r = checked(redis.command({"XREVRANGE", names.results_stream(), "+", std::to_string(first * 60000),
                                           "COUNT", std::to_string(max_entries)}),
                            "XREVRANGE");
    for (const auto& e : r.elements) {
        if (e.elements.size() < 2) continue;
        const long long ms = std::stoll(e.elements[0].str.substr(0, e.elements[0].str.find('-')));
        const long long index = ms / 60000 - first;
        if (index < 0 || index >= static_cast<long long>(out.size())) continue;
        const std::string status = field_value(e.elements[1].as_pairs(), "status");
        if (status == "done") ++out[static_cast<std::size_t>(index)].done;
        if (status == "failed") ++out[static_cast<std::size_t>(index)].failed;
    }
    return out;
}

void count_failures(Redis& redis, const QueueNames& names, const std::vector<std::string>& codes) {
    std::vector<std::vector<std::string>> commands;
    for (const auto& code : codes) commands.push_back({"HINCRBY", failures_key(names), code, "1"});
    if (!commands.empty()) redis.pipeline(commands);
}

std::map<std::string, long long> read_failures_by_code(Redis& redis, const QueueNames& names) {
    std::map<std::string, long long> out;
    for (const auto& [code, n] : checked(redis.command({"HGETALL", failures_key(names)}), "HGETALL").as_pairs()) {
        out[code] = std::atoll(n.c_str());
    }
    return out;
}

} // namespace jobs

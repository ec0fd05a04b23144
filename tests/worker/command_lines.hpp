#pragma once

// Helpers of the command-line tests: a connection of the test's own, a stream entry's
// fields, a command's JSON output line by line.
#include "jobs/redis.hpp"
#include "tests/support/redis_server.hpp"

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace testsupport {

/// A connection of the test's own to the server the commands use.
inline jobs::Redis connect(const RedisServer& server) {
    return jobs::Redis(jobs::parse_redis_url(server.url()), std::chrono::milliseconds(5000));
}

/// The fields of stream entry `id`, empty when there is none.
inline std::vector<std::pair<std::string, std::string>> entry_fields(jobs::Redis& redis, const std::string& stream,
                                                                     const std::string& id) {
    const jobs::Reply r = redis.command({"XRANGE", stream, id, id});
    if (r.elements.size() != 1 || r.elements[0].elements.size() != 2) return {};
    return r.elements[0].elements[1].as_pairs();
}

/// One parsed JSON object per output line.
inline std::vector<nlohmann::ordered_json> lines_of(const std::string& out) {
    std::vector<nlohmann::ordered_json> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::ordered_json::parse(line));
    return lines;
}

} // namespace testsupport

#pragma once

#include "jobs/reply.hpp"

#include <string>
#include <vector>

namespace jobs {

class Redis;

/// A Lua script loaded once and called by SHA; reloaded after NOSCRIPT (a restarted
/// Redis forgets scripts).
class Script {
public:
    explicit Script(std::string source);
    /// EVALSHA with `keys` and `args`; falls back to SCRIPT LOAD on NOSCRIPT. Error replies
    /// are returned, not thrown; throws RedisIoError like Redis::command.
    Reply call(Redis& redis, const std::vector<std::string>& keys, const std::vector<std::string>& args) const;
    const std::string& sha() const { return m_sha; }

private:
    std::string m_source;
    std::string m_sha;
};

} // namespace jobs

#pragma once

#include "jobs/redis_error.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jobs {

/// A reply copied out of hiredis into plain values, so that nothing outside redis.cpp
/// sees a `redisReply`.
struct Reply {
    enum class Type { nil, integer, string, status, error, array };
    Type type = Type::nil;
    long long integer = 0;
    std::string str; // string, status or error text
    std::vector<Reply> elements;

    bool is_nil() const { return type == Type::nil; }
    bool is_error() const { return type == Type::error; }
    bool is_array() const { return type == Type::array; }
    /// The error text starts with `prefix` ("NOSCRIPT", "BUSYGROUP", "LOADING", "OOM").
    bool error_is(std::string_view prefix) const;
    /// Flat array of strings as pairs (HGETALL, stream entry fields).
    std::vector<std::pair<std::string, std::string>> as_pairs() const;
};

/// Returns `reply` unchanged, or throws RedisReplyError (naming `what`) when it is an error
/// reply. The reference form returns its argument; the value form takes a temporary.
const Reply& checked(const Reply& reply, std::string_view what);
Reply checked(Reply&& reply, std::string_view what);

} // namespace jobs

#include "jobs/redis_sentinel.hpp"

#include "jobs/redis_connection.hpp"
#include "jobs/redis_error.hpp"

#include <hiredis/hiredis.h>

namespace jobs {
namespace {

// One sentinel's answer: the primary's address, or a RedisIoError saying why not.
RedisEndpoint ask_one(const RedisAddress& a, const RedisEndpoint& sentinel, std::chrono::milliseconds timeout) {
    RedisAddress tcp;
    auto conn = connect_plain(tcp, sentinel.host, sentinel.port, timeout);
    conn->append(Argv({"SENTINEL", "get-master-addr-by-name", a.master_name}));
    ReplyPtr reply = conn->read_reply();
    if (!reply) throw RedisIoError("sentinel did not answer: " + conn->error());
    if (reply->type == REDIS_REPLY_ERROR)
        throw RedisIoError("sentinel refused: " + std::string(reply->str, reply->len));
    if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2) {
        throw RedisIoError("sentinel knows no primary named " + a.master_name);
    }
    RedisEndpoint primary;
    primary.host.assign(reply->element[0]->str, reply->element[0]->len);
    try {
        primary.port = std::stoi(std::string(reply->element[1]->str, reply->element[1]->len));
    } catch (const std::exception&) {
        throw RedisIoError("sentinel named a bad port for " + a.master_name);
    }
    return primary;
}

} // namespace

RedisEndpoint ask_sentinels(const RedisAddress& a, std::chrono::milliseconds timeout) {
    // A sentinel that is down must not hold the others up for the whole command timeout.
    const auto each = std::min(timeout, std::chrono::milliseconds(1000));
    std::string last;
    for (const auto& sentinel : a.sentinels) {
        try {
            return ask_one(a, sentinel, each);
        } catch (const RedisIoError& e) {
            last = sentinel.host + ":" + std::to_string(sentinel.port) + ": " + e.what();
        }
    }
    throw RedisIoError("no sentinel named the primary " + a.master_name + " (" + last + ")");
}

} // namespace jobs

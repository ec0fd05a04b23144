#include "jobs/redis_connection.hpp"

#include "jobs/redis_error.hpp"

#include <hiredis/hiredis.h>
#include <sys/time.h>

namespace jobs {

void ReplyDeleter::operator()(redisReply* r) const {
    freeReplyObject(r);
}

Argv::Argv(const std::vector<std::string>& args) {
    argv.reserve(args.size());
    lens.reserve(args.size());
    for (const auto& s : args) {
        argv.push_back(s.data());
        lens.push_back(s.size());
    }
}

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

struct ContextDeleter {
    void operator()(redisContext* c) const { redisFree(c); }
};

// hiredis's own blocking context: TCP or a unix socket.
class PlainConnection final : public RedisConnection {
public:
    explicit PlainConnection(redisContext* ctx) : m_ctx(ctx) {}

    bool append(const Argv& a) override {
        return redisAppendCommandArgv(m_ctx.get(), a.count(), const_cast<const char**>(a.argv.data()), a.lens.data()) ==
               REDIS_OK;
    }

    ReplyPtr read_reply() override {
        void* raw = nullptr;
        if (redisGetReply(m_ctx.get(), &raw) != REDIS_OK) return nullptr;
        return ReplyPtr(static_cast<redisReply*>(raw));
    }

    void set_timeout(std::chrono::milliseconds timeout) override { redisSetTimeout(m_ctx.get(), to_timeval(timeout)); }

    std::string error() const override { return m_ctx->errstr; }

private:
    std::unique_ptr<redisContext, ContextDeleter> m_ctx;
};

} // namespace

std::unique_ptr<RedisConnection> connect_plain(const RedisAddress& a, const std::string& host, int port,
                                               std::chrono::milliseconds timeout) {
    const timeval connect_timeout = to_timeval(std::min(timeout, std::chrono::milliseconds(5000)));
    redisContext* raw = a.unix_path.empty() ? redisConnectWithTimeout(host.c_str(), port, connect_timeout)
                                            : redisConnectUnixWithTimeout(a.unix_path.c_str(), connect_timeout);
    if (raw == nullptr) throw RedisIoError("cannot allocate a Redis context");
    auto conn = std::make_unique<PlainConnection>(raw);
    if (raw->err != 0) throw RedisIoError(std::string("cannot connect to Redis: ") + raw->errstr);
    conn->set_timeout(timeout);
    if (a.unix_path.empty()) redisEnableKeepAlive(raw);
    return conn;
}

} // namespace jobs

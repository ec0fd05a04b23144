#include "jobs/redis.hpp"

#include <hiredis/hiredis.h>
#include <sys/time.h>

namespace jobs {
namespace {

struct ContextDeleter {
    void operator()(redisContext* c) const { redisFree(c); }
};
struct ReplyDeleter {
    void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ContextPtr = std::unique_ptr<redisContext, ContextDeleter>;
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

// One command's arguments as hiredis takes them: pointers and explicit lengths (binary safe).
struct Argv {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;

    explicit Argv(const std::vector<std::string>& args) {
        argv.reserve(args.size());
        lens.reserve(args.size());
        for (const auto& s : args) {
            argv.push_back(s.data());
            lens.push_back(s.size());
        }
    }
    int count() const { return static_cast<int>(argv.size()); }
};

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

Reply::Type type_of(int hiredis_type) {
    switch (hiredis_type) {
    case REDIS_REPLY_STRING:
        return Reply::Type::string;
    case REDIS_REPLY_STATUS:
        return Reply::Type::status;
    case REDIS_REPLY_ERROR:
        return Reply::Type::error;
    case REDIS_REPLY_INTEGER:
        return Reply::Type::integer;
    case REDIS_REPLY_ARRAY:
        return Reply::Type::array;
    default:
        return Reply::Type::nil;
    }
}

// Copies a borrowed hiredis reply tree into owned values.
Reply convert(const redisReply* r) {
    Reply out;
    out.type = type_of(r->type);
    switch (out.type) {
    case Reply::Type::string:
    case Reply::Type::status:
    case Reply::Type::error:
        out.str.assign(r->str, r->len);
        break;
    case Reply::Type::integer:
        out.integer = r->integer;
        break;
    case Reply::Type::array:
        out.elements.reserve(r->elements);
        for (std::size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
        break;
    case Reply::Type::nil:
        break;
    }
    return out;
}

// Error replies that say "not now" rather than "never": the server is loading its data,
// running a slow script, out of memory, or between roles in a failover.
bool is_transient_error(const Reply& r) {
    if (!r.is_error()) return false;
    std::string_view code(r.str);
    code = code.substr(0, code.find(' '));
    return code == "LOADING" || code == "BUSY" || code == "OOM" || code == "MASTERDOWN" || code == "TRYAGAIN" ||
           code == "READONLY" || code == "CLUSTERDOWN" || code == "NOREPLICAS";
}

// A replica (READONLY) or a master that lost its link may be replaced behind the same
// address: reconnect rather than keep talking to it.
bool needs_reconnect(const Reply& r) {
    return r.error_is("READONLY") || r.error_is("MASTERDOWN");
}

// AUTH and SELECT on a fresh connection: any refusal is a connection failure.
void set_up(redisContext* ctx, const std::vector<std::string>& args) {
    Argv a(args);
    ReplyPtr reply(static_cast<redisReply*>(redisCommandArgv(ctx, a.count(), a.argv.data(), a.lens.data())));
    if (!reply) {
        throw RedisIoError(std::string("Redis connection failed: ") + ctx->errstr);
    }
    if (reply->type == REDIS_REPLY_ERROR) {
        throw RedisIoError(std::string("Redis refused ") + args[0] + ": " + std::string(reply->str, reply->len));
    }
}

} // namespace

struct Redis::Impl {
    RedisAddress address;
    std::chrono::milliseconds timeout;
    ContextPtr ctx;

    // A transient error reply becomes RedisBusyError (dropping the connection when the
    // server behind the address may have changed role).
    void throw_if_transient(const Reply& r, const std::string& what) {
        if (!is_transient_error(r)) return;
        if (needs_reconnect(r)) ctx.reset();
        throw RedisBusyError("Redis " + what + " refused for now: " + r.str);
    }
};

Redis::Redis(RedisAddress address, std::chrono::milliseconds timeout)
    : m_impl(std::make_unique<Impl>(Impl{std::move(address), timeout, nullptr})) {}

Redis::~Redis() = default;

void Redis::disconnect() {
    m_impl->ctx.reset();
}

void Redis::set_timeout(std::chrono::milliseconds timeout) {
    m_impl->timeout = timeout;
    if (m_impl->ctx) {
        redisSetTimeout(m_impl->ctx.get(), to_timeval(timeout));
    }
}

void Redis::ensure_connected() {
    if (m_impl->ctx) return;
    const auto& a = m_impl->address;
    timeval connect_timeout = to_timeval(std::min(m_impl->timeout, std::chrono::milliseconds(5000)));
    ContextPtr ctx(a.unix_path.empty() ? redisConnectWithTimeout(a.host.c_str(), a.port, connect_timeout)
                                       : redisConnectUnixWithTimeout(a.unix_path.c_str(), connect_timeout));
    if (!ctx) {
        throw RedisIoError("cannot allocate a Redis context");
    }
    if (ctx->err != 0) {
        throw RedisIoError(std::string("cannot connect to Redis: ") + ctx->errstr);
    }
    redisSetTimeout(ctx.get(), to_timeval(m_impl->timeout));
    if (a.unix_path.empty()) {
        redisEnableKeepAlive(ctx.get());
    }
    if (!a.password.empty()) {
        if (a.username.empty()) {
            set_up(ctx.get(), {"AUTH", a.password});
        } else {
            set_up(ctx.get(), {"AUTH", a.username, a.password});
        }
    }
    if (a.db != 0) {
        set_up(ctx.get(), {"SELECT", std::to_string(a.db)});
    }
    m_impl->ctx = std::move(ctx);
}

Reply Redis::command(const std::vector<std::string>& args) {
    ensure_connected();
    Argv a(args);
    ++m_round_trips;
    ReplyPtr reply(
        static_cast<redisReply*>(redisCommandArgv(m_impl->ctx.get(), a.count(), a.argv.data(), a.lens.data())));
    const std::string name = args.empty() ? std::string() : args[0];
    if (!reply) {
        std::string why = m_impl->ctx->errstr;
        m_impl->ctx.reset(); // a context that returned an error is never reused
        throw RedisIoError("Redis " + name + " failed: " + why);
    }
    Reply out = convert(reply.get());
    m_impl->throw_if_transient(out, name);
    return out;
}

std::vector<Reply> Redis::pipeline(const std::vector<std::vector<std::string>>& commands) {
    ensure_connected();
    redisContext* c = m_impl->ctx.get();
    for (const auto& args : commands) {
        Argv a(args);
        if (redisAppendCommandArgv(c, a.count(), a.argv.data(), a.lens.data()) != REDIS_OK) {
            m_impl->ctx.reset();
            throw RedisIoError("Redis pipeline append failed");
        }
    }
    ++m_round_trips;
    std::vector<Reply> out;
    out.reserve(commands.size());
    for (std::size_t i = 0; i < commands.size(); ++i) {
        void* raw = nullptr;
        if (redisGetReply(c, &raw) != REDIS_OK || raw == nullptr) {
            std::string why = c->errstr;
            m_impl->ctx.reset();
            throw RedisIoError("Redis pipeline failed: " + why);
        }
        ReplyPtr reply(static_cast<redisReply*>(raw));
        out.push_back(convert(reply.get()));
    }
    for (const auto& r : out) m_impl->throw_if_transient(r, "pipeline");
    return out;
}

} // namespace jobs

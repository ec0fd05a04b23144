#include "jobs/redis.hpp"

#include <cstdlib>
#include <cstring>

#include <hiredis/hiredis.h>
#include <openssl/sha.h>
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

timeval to_timeval(std::chrono::milliseconds ms) {
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

// Copies a borrowed hiredis reply tree into owned values.
Reply convert(const redisReply* r) {
    Reply out;
    switch (r->type) {
    case REDIS_REPLY_STRING:
        out.type = Reply::Type::string;
        out.str.assign(r->str, r->len);
        break;
    case REDIS_REPLY_STATUS:
        out.type = Reply::Type::status;
        out.str.assign(r->str, r->len);
        break;
    case REDIS_REPLY_ERROR:
        out.type = Reply::Type::error;
        out.str.assign(r->str, r->len);
        break;
    case REDIS_REPLY_INTEGER:
        out.type = Reply::Type::integer;
        out.integer = r->integer;
        break;
    case REDIS_REPLY_ARRAY:
        out.type = Reply::Type::array;
        out.elements.reserve(r->elements);
        for (std::size_t i = 0; i < r->elements; ++i) {
            out.elements.push_back(convert(r->element[i]));
        }
        break;
    default:
        out.type = Reply::Type::nil;
        break;
    }
    return out;
}

std::string sha1_hex(const std::string& s) {
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string hex;
    for (unsigned char b : digest) {
        hex.push_back(k_digits[b >> 4]);
        hex.push_back(k_digits[b & 0xF]);
    }
    return hex;
}

int parse_int(const std::string& s, const char* what) {
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno != 0 || v < 0 || v > 65535) {
        throw std::invalid_argument(std::string("bad ") + what + " \"" + s + "\"");
    }
    return static_cast<int>(v);
}

std::string percent_decode(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
            out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
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

} // namespace

RedisAddress parse_redis_url(const std::string& url) {
    RedisAddress a;
    if (url.rfind("unix://", 0) == 0) {
        std::string rest = url.substr(7);
        auto q = rest.find('?');
        if (q != std::string::npos) {
            std::string query = rest.substr(q + 1);
            rest = rest.substr(0, q);
            if (query.rfind("db=", 0) == 0) {
                a.db = parse_int(query.substr(3), "database number");
            } else if (!query.empty()) {
                throw std::invalid_argument("unknown query \"" + query + "\"");
            }
        }
        if (rest.empty() || rest[0] != '/') {
            throw std::invalid_argument("a unix:// URL needs an absolute socket path");
        }
        a.unix_path = rest;
        return a;
    }
    if (url.rfind("redis://", 0) != 0) {
        throw std::invalid_argument("expected redis://host:port/db or unix:///path");
    }
    std::string rest = url.substr(8);
    auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    if (slash != std::string::npos) {
        std::string db = rest.substr(slash + 1);
        if (!db.empty()) a.db = parse_int(db, "database number");
    }
    auto at = authority.rfind('@');
    if (at != std::string::npos) {
        std::string userinfo = authority.substr(0, at);
        authority = authority.substr(at + 1);
        auto colon = userinfo.find(':');
        if (colon == std::string::npos) {
            a.password = percent_decode(userinfo);
        } else {
            a.username = percent_decode(userinfo.substr(0, colon));
            a.password = percent_decode(userinfo.substr(colon + 1));
        }
    }
    if (!authority.empty() && authority[0] == '[') {
        auto close = authority.find(']');
        if (close == std::string::npos) throw std::invalid_argument("bad IPv6 host");
        a.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw std::invalid_argument("bad host");
            a.port = parse_int(authority.substr(close + 2), "port");
        }
    } else {
        auto colon = authority.rfind(':');
        if (colon != std::string::npos) {
            a.host = authority.substr(0, colon);
            a.port = parse_int(authority.substr(colon + 1), "port");
        } else if (!authority.empty()) {
            a.host = authority;
        }
    }
    if (a.host.empty()) a.host = "127.0.0.1";
    if (a.port == 0) throw std::invalid_argument("port 0");
    return a;
}

bool Reply::error_is(std::string_view prefix) const {
    return type == Type::error && std::string_view(str).substr(0, prefix.size()) == prefix;
}

std::vector<std::pair<std::string, std::string>> Reply::as_pairs() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i + 1 < elements.size(); i += 2) {
        out.emplace_back(elements[i].str, elements[i + 1].str);
    }
    return out;
}

struct Redis::Impl {
    RedisAddress address;
    std::chrono::milliseconds timeout;
    ContextPtr ctx;
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
    auto setup = [&](std::vector<std::string> args) {
        std::vector<const char*> argv;
        std::vector<std::size_t> lens;
        for (const auto& s : args) {
            argv.push_back(s.data());
            lens.push_back(s.size());
        }
        ReplyPtr reply(static_cast<redisReply*>(
            redisCommandArgv(ctx.get(), static_cast<int>(argv.size()), argv.data(), lens.data())));
        if (!reply) {
            throw RedisIoError(std::string("Redis connection failed: ") + ctx->errstr);
        }
        if (reply->type == REDIS_REPLY_ERROR) {
            throw RedisIoError(std::string("Redis refused ") + args[0] + ": " + std::string(reply->str, reply->len));
        }
    };
    if (!a.password.empty()) {
        if (a.username.empty()) {
            setup({"AUTH", a.password});
        } else {
            setup({"AUTH", a.username, a.password});
        }
    }
    if (a.db != 0) {
        setup({"SELECT", std::to_string(a.db)});
    }
    m_impl->ctx = std::move(ctx);
}

Reply Redis::command(const std::vector<std::string>& args) {
    ensure_connected();
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    argv.reserve(args.size());
    lens.reserve(args.size());
    for (const auto& s : args) {
        argv.push_back(s.data());
        lens.push_back(s.size());
    }
    ++m_round_trips;
    ReplyPtr reply(static_cast<redisReply*>(
        redisCommandArgv(m_impl->ctx.get(), static_cast<int>(argv.size()), argv.data(), lens.data())));
    if (!reply) {
        std::string why = m_impl->ctx->errstr;
        m_impl->ctx.reset(); // a context that returned an error is never reused
        throw RedisIoError("Redis " + (args.empty() ? std::string() : args[0]) + " failed: " + why);
    }
    Reply out = convert(reply.get());
    if (is_transient_error(out)) {
        if (needs_reconnect(out)) m_impl->ctx.reset();
        throw RedisBusyError("Redis " + (args.empty() ? std::string() : args[0]) + " refused for now: " + out.str);
    }
    return out;
}

std::vector<Reply> Redis::pipeline(const std::vector<std::vector<std::string>>& commands) {
    ensure_connected();
    redisContext* c = m_impl->ctx.get();
    for (const auto& args : commands) {
        std::vector<const char*> argv;
        std::vector<std::size_t> lens;
        for (const auto& s : args) {
            argv.push_back(s.data());
            lens.push_back(s.size());
        }
        if (redisAppendCommandArgv(c, static_cast<int>(argv.size()), argv.data(), lens.data()) != REDIS_OK) {
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
    for (const auto& r : out) {
        if (is_transient_error(r)) {
            if (needs_reconnect(r)) m_impl->ctx.reset();
            throw RedisBusyError("Redis pipeline refused for now: " + r.str);
        }
    }
    return out;
}

Script::Script(std::string source) : m_source(std::move(source)), m_sha(sha1_hex(m_source)) {}

Reply Script::call(Redis& redis, const std::vector<std::string>& keys, const std::vector<std::string>& args) const {
    std::vector<std::string> cmd;
    cmd.reserve(3 + keys.size() + args.size());
    cmd.push_back("EVALSHA");
    cmd.push_back(m_sha);
    cmd.push_back(std::to_string(keys.size()));
    cmd.insert(cmd.end(), keys.begin(), keys.end());
    cmd.insert(cmd.end(), args.begin(), args.end());
    Reply reply = redis.command(cmd);
    if (reply.error_is("NOSCRIPT")) {
        Reply loaded = redis.command({"SCRIPT", "LOAD", m_source});
        if (loaded.is_error()) {
            return loaded;
        }
        reply = redis.command(cmd);
    }
    return reply;
}

} // namespace jobs

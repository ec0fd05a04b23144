#include "jobs/redis.hpp"

#include "jobs/redis_connection.hpp"
#include "jobs/redis_sentinel.hpp"

#include <hiredis/hiredis.h>

namespace jobs {
namespace {

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

// The failure of `conn` as the exception it calls for: TLS's refusals are told apart.
[[noreturn]] void throw_failure(const RedisConnection& conn, const std::string& what) {
    if (conn.tls_failed()) throw RedisTlsError(what + conn.error());
    throw RedisIoError(what + conn.error());
}

// One command on a connection being set up; an error reply is a connection failure.
Reply set_up(RedisConnection& conn, const std::vector<std::string>& args) {
    if (!conn.append(Argv(args))) throw_failure(conn, "Redis connection failed: ");
    ReplyPtr reply = conn.read_reply();
    if (!reply) throw_failure(conn, "Redis connection failed: ");
    Reply out = convert(reply.get());
    if (out.is_error()) throw RedisIoError("Redis refused " + args[0] + ": " + out.str);
    return out;
}

// AUTH, then (behind sentinels) ROLE, then SELECT; a TLS connection without AUTH is PINGed
// so that a refused client certificate shows now, not at the first real command.
void set_up_session(RedisConnection& conn, const RedisAddress& a, const std::string& where) {
    if (!a.password.empty()) {
        set_up(conn, a.username.empty() ? std::vector<std::string>{"AUTH", a.password}
                                        : std::vector<std::string>{"AUTH", a.username, a.password});
    } else if (a.tls.enabled) {
        set_up(conn, {"PING"});
    }
    if (!a.sentinels.empty()) {
        const Reply role = set_up(conn, {"ROLE"});
        const std::string name = role.is_array() && !role.elements.empty() ? role.elements[0].str : "";
        if (name != "master") {
            throw RedisIoError("the sentinels named " + where + " as the primary, but it is a " +
                               (name.empty() ? std::string("server of unknown role") : name) + " for now");
        }
    }
    if (a.db != 0) set_up(conn, {"SELECT", std::to_string(a.db)});
}

} // namespace

struct Redis::Impl {
    RedisAddress address;
    std::chrono::milliseconds timeout;
    std::unique_ptr<RedisConnection> conn;

    // A transient error reply becomes RedisBusyError (dropping the connection when the
    // server behind the address may have changed role).
    void throw_if_transient(const Reply& r, const std::string& what) {
        if (!is_transient_error(r)) return;
        if (needs_reconnect(r)) conn.reset();
        throw RedisBusyError("Redis " + what + " refused for now: " + r.str);
    }

    // The connection's failure as an exception; the connection is never reused.
    [[noreturn]] void fail(const std::string& what) {
        std::unique_ptr<RedisConnection> failed = std::move(conn);
        throw_failure(*failed, what);
    }

    void connect() {
        RedisEndpoint where{address.host, address.port};
        // Behind sentinels the primary is asked anew on every connection: after a failover
        // (a dropped connection or a READONLY reply) the next one goes to the new primary.
        if (!address.sentinels.empty()) where = ask_sentinels(address, timeout);
        const std::string name = where.host + ":" + std::to_string(where.port);
        auto fresh = address.tls.enabled ? connect_tls(address.tls, where.host, where.port, timeout)
                                         : connect_plain(address, where.host, where.port, timeout);
        set_up_session(*fresh, address, name);
        conn = std::move(fresh);
    }
};

Redis::Redis(RedisAddress address, std::chrono::milliseconds timeout)
    : m_impl(std::make_unique<Impl>(Impl{std::move(address), timeout, nullptr})) {}

Redis::~Redis() = default;

void Redis::disconnect() {
    m_impl->conn.reset();
}

void Redis::set_timeout(std::chrono::milliseconds timeout) {
    m_impl->timeout = timeout;
    if (m_impl->conn) m_impl->conn->set_timeout(timeout);
}

void Redis::ensure_connected() {
    if (!m_impl->conn) m_impl->connect();
}

Reply Redis::command(const std::vector<std::string>& args) {
    ensure_connected();
    ++m_round_trips;
    const std::string name = args.empty() ? std::string() : args[0];
    if (!m_impl->conn->append(Argv(args))) m_impl->fail("Redis " + name + " failed: ");
    ReplyPtr reply = m_impl->conn->read_reply();
    if (!reply) m_impl->fail("Redis " + name + " failed: ");
    Reply out = convert(reply.get());
    m_impl->throw_if_transient(out, name);
    return out;
}

std::vector<Reply> Redis::pipeline(const std::vector<std::vector<std::string>>& commands) {
    ensure_connected();
    for (const auto& args : commands) {
        if (!m_impl->conn->append(Argv(args))) m_impl->fail("Redis pipeline append failed: ");
    }
    ++m_round_trips;
    std::vector<Reply> out;
    out.reserve(commands.size());
    for (std::size_t i = 0; i < commands.size(); ++i) {
        ReplyPtr reply = m_impl->conn->read_reply();
        if (!reply) m_impl->fail("Redis pipeline failed: ");
        out.push_back(convert(reply.get()));
    }
    for (const auto& r : out) m_impl->throw_if_transient(r, "pipeline");
    return out;
}

} // namespace jobs

#include "jobs/redis_url.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace jobs {
namespace {

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

RedisAddress parse_unix_url(std::string rest) {
    RedisAddress a;
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

// `[user:]password@` in front of the host.
void parse_userinfo(const std::string& userinfo, RedisAddress& a) {
    auto colon = userinfo.find(':');
    if (colon == std::string::npos) {
        a.password = percent_decode(userinfo);
    } else {
        a.username = percent_decode(userinfo.substr(0, colon));
        a.password = percent_decode(userinfo.substr(colon + 1));
    }
}

// `host`, `host:port`, `[v6]` or `[v6]:port`.
void parse_host_port(const std::string& authority, RedisAddress& a) {
    if (!authority.empty() && authority[0] == '[') {
        auto close = authority.find(']');
        if (close == std::string::npos) throw std::invalid_argument("bad IPv6 host");
        a.host = authority.substr(1, close - 1);
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw std::invalid_argument("bad host");
            a.port = parse_int(authority.substr(close + 2), "port");
        }
        return;
    }
    auto colon = authority.rfind(':');
    if (colon != std::string::npos) {
        a.host = authority.substr(0, colon);
        a.port = parse_int(authority.substr(colon + 1), "port");
    } else if (!authority.empty()) {
        a.host = authority;
    }
}

// `authority` is `[userinfo@]rest`: the userinfo parsed into `a`, `rest` returned.
std::string take_userinfo(std::string authority, RedisAddress& a) {
    auto at = authority.rfind('@');
    if (at != std::string::npos) {
        parse_userinfo(authority.substr(0, at), a);
        authority = authority.substr(at + 1);
    }
    return authority;
}

// `host:port[,host:port…]/MASTER_NAME[/db]` after `redis-sentinel://`.
RedisAddress parse_sentinel_url(const std::string& rest) {
    RedisAddress a;
    auto slash = rest.find('/');
    if (slash == std::string::npos || slash + 1 >= rest.size()) {
        throw std::invalid_argument("a redis-sentinel:// URL needs /MASTER_NAME after the sentinels");
    }
    std::string sentinels = take_userinfo(rest.substr(0, slash), a);
    std::string path = rest.substr(slash + 1);
    auto db_slash = path.find('/');
    a.master_name = path.substr(0, db_slash);
    if (db_slash != std::string::npos && db_slash + 1 < path.size()) {
        a.db = parse_int(path.substr(db_slash + 1), "database number");
    }
    if (a.master_name.empty()) throw std::invalid_argument("empty master name");
    std::size_t start = 0;
    while (start <= sentinels.size()) {
        auto comma = std::min(sentinels.find(',', start), sentinels.size());
        RedisAddress one;
        one.host.clear();
        one.port = 26379;
        parse_host_port(sentinels.substr(start, comma - start), one);
        if (one.host.empty() || one.port == 0) throw std::invalid_argument("bad sentinel address");
        a.sentinels.push_back({one.host, one.port});
        start = comma + 1;
    }
    a.host.clear();
    a.port = 0;
    return a;
}

} // namespace

RedisAddress parse_redis_url(const std::string& url) {
    if (url.rfind("unix://", 0) == 0) return parse_unix_url(url.substr(7));
    if (url.rfind("redis-sentinel://", 0) == 0) return parse_sentinel_url(url.substr(17));
    const bool tls = url.rfind("rediss://", 0) == 0;
    if (!tls && url.rfind("redis://", 0) != 0) {
        throw std::invalid_argument("the scheme is not redis://, rediss://, redis-sentinel:// or unix://");
    }
    RedisAddress a;
    a.tls.enabled = tls;
    std::string rest = url.substr(tls ? 9 : 8);
    auto slash = rest.find('/');
    std::string authority = take_userinfo(rest.substr(0, slash), a);
    if (slash != std::string::npos) {
        std::string db = rest.substr(slash + 1);
        if (!db.empty()) a.db = parse_int(db, "database number");
    }
    parse_host_port(authority, a);
    if (a.host.empty()) a.host = "127.0.0.1";
    if (a.port == 0) throw std::invalid_argument("port 0");
    return a;
}

} // namespace jobs

namespace jobs {

std::string redacted_redis_url(const std::string& url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string::npos) return url;
    const auto start = scheme_end + 3;
    const auto end = std::min(url.find('/', start), url.size());
    const auto at = url.rfind('@', end - 1);
    if (at == std::string::npos || at < start || end == start) return url;
    const auto colon = url.find(':', start);
    const auto from = colon != std::string::npos && colon < at ? colon + 1 : start;
    return url.substr(0, from) + "***" + url.substr(at);
}

} // namespace jobs

#include "jobs/script.hpp"

#include "jobs/redis.hpp"

#include <openssl/sha.h>

namespace jobs {
namespace {

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

} // namespace

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

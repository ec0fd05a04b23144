#include "jobs/reply.hpp"

namespace jobs {

bool Reply::error_is(std::string_view prefix) const {
    return type == Type::error && std::string_view(str).starts_with(prefix);
}

std::vector<std::pair<std::string, std::string>> Reply::as_pairs() const {
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i + 1 < elements.size(); i += 2) {
        out.emplace_back(elements[i].str, elements[i + 1].str);
    }
    return out;
}

const Reply& checked(const Reply& reply, std::string_view what) {
    if (reply.is_error()) throw RedisReplyError(what, reply.str);
    return reply;
}

Reply checked(Reply&& reply, std::string_view what) {
    checked(static_cast<const Reply&>(reply), what);
    return std::move(reply);
}

} // namespace jobs

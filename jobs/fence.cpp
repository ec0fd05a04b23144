#include "jobs/fence.hpp"

namespace jobs {

const char* to_string(Fence f) {
    switch (f) {
    case Fence::ok:
        return "ok";
    case Fence::lost:
        return "lost";
    case Fence::superseded:
        return "superseded";
    case Fence::already_final:
        return "already_final";
    }
    return "?";
}

Fence fence_of(const Reply& reply, std::string_view what) {
    // The group was destroyed under the job (XGROUP DESTROY, a flushed database): the entry
    // is no longer this consumer's to write.
    if (reply.error_is("NOGROUP")) return Fence::lost;
    checked(reply, what);
    for (Fence f : {Fence::ok, Fence::lost, Fence::superseded, Fence::already_final}) {
        if (reply.str == to_string(f)) return f;
    }
    throw RedisReplyError(what, "unexpected reply \"" + reply.str + "\"");
}

} // namespace jobs

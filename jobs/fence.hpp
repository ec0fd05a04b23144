#pragma once

#include "jobs/reply.hpp"

#include <string_view>

namespace jobs {

/// The outcome of a fenced write.
enum class Fence {
    ok,            // written (and acknowledged, for a final commit)
    lost,          // this consumer no longer owns the entry: nothing written, not acknowledged
    superseded,    // a newer event for the file_id exists: only acknowledged
    already_final, // this very event is already final: only acknowledged
};

/// "ok", "lost", "superseded" or "already_final" (what logs and metrics carry).
const char* to_string(Fence f);

/// The verdict a fenced script returned. A missing consumer group (NOGROUP) is Fence::lost:
/// this consumer owns nothing any more. Throws RedisReplyError (naming `what`) for any other
/// error reply or an unknown verdict.
Fence fence_of(const Reply& reply, std::string_view what);

} // namespace jobs

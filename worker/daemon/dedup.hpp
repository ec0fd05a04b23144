#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "worker/pipeline/pipeline.hpp"
#include "worker/storage/store.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace worker {

/// Files smaller than this are recomputed rather than looked up: for them a lookup costs
/// more than the work.
inline constexpr std::uint64_t k_dedup_min_bytes = 64 * 1024;

/// A finished file's result taken over for identical bytes.
struct ReusedResult {
    PipelineResult result;      ///< its fields (with `deduplicated_from`), outputs already copied
    std::string source_file_id; ///< the file whose result it is
};

/// Content-hash reuse: when `<prefix>hash:<sha256>` names another file whose metadata is
/// done, made by this `pipeline_version` and with the steps `spec` asks for, copies its
/// outputs under `spec.file_id` (Store::copy, to the keys of core/layout.hpp) and returns
/// its result. Returns nullopt when there is nothing to reuse or anything is in doubt (the
/// caller then computes the result). Throws jobs::RedisIoError when Redis is unreachable.
std::optional<ReusedResult> reuse_identical(jobs::Redis& redis, const jobs::QueueNames& names, const Store& storage,
                                            const std::string& sha256, const JobSpec& spec,
                                            const std::string& pipeline_version);

} // namespace worker

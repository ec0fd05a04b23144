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

/// Content-hash reuse: when `<prefix>hash:<sha256>` names another file whose metadata is
/// done, made by this `pipeline_version` and with the steps `spec` asks for, copies its
/// outputs under `spec.file_id` and returns its result fields with `deduplicated_from`
/// set. Returns nullopt when there is nothing to reuse or anything is in doubt (the caller
/// then computes the result). Throws jobs::RedisIoError when Redis is unreachable.
std::optional<PipelineResult> reuse_identical(jobs::Redis& redis, const jobs::QueueNames& names, const Store& storage,
                                              const std::string& sha256, const JobSpec& spec,
                                              const std::string& pipeline_version);

} // namespace worker

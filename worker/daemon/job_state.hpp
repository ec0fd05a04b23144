#pragma once

// One delivery's state from stage to stage, shared by job_runner.cpp and job_storage.cpp
// (private to JobRunner).
#include "jobs/event.hpp"
#include "jobs/timestamp.hpp"
#include "worker/daemon/job_runner.hpp"

#include <chrono>

namespace worker {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

struct JobRunner::Job {
    // Members initialise in this order: the clock starts before the entry is parsed.
    Job(const jobs::Delivery& d, const std::function<bool()>& lost)
        : delivery(d), lease_lost(lost), parsed(jobs::parse_event(d.entry_id, d.fields)) {}

    const jobs::Delivery& delivery;
    const std::function<bool()>& lease_lost;
    const Clock::time_point started = Clock::now();
    const std::string started_at = jobs::utc_now_rfc3339();
    const jobs::ParsedEntry parsed;
    Fields common;           // bookkeeping and event fields, in the processing write and the commit
    PipelineResult result;   // what the file's processing (or reuse) produced
    std::uint64_t size = 0;  // the input's size, once opened
    std::string reused_from; // the file whose result was reused, if any
    bool analysed = false;   // result holds the analysis; only its outputs are left to write

    const jobs::Event& event() const { return parsed.event; }
    const std::string& file_id() const { return parsed.event.file_id; }
    const std::string& entry_id() const { return delivery.entry_id; }
};

} // namespace worker

#include "worker/metrics.hpp"

#include <sstream>

namespace worker {

void Metrics::job(const std::string& outcome, const std::string& kind) {
    std::lock_guard lock(m_mu);
    ++m_jobs[{outcome, kind}];
}

void Metrics::stage(const std::string& stage, double seconds) {
    std::lock_guard lock(m_mu);
    Histogram& h = m_stages[stage];
    for (std::size_t i = 0; i < k_buckets.size(); ++i) {
        if (seconds <= k_buckets[i]) ++h.counts[i];
    }
    ++h.count;
    h.sum += seconds;
}

std::string Metrics::render() const {
    std::ostringstream o;
    std::lock_guard lock(m_mu);
    o << "# HELP ingestd_jobs_total Jobs finished, by outcome and detected type.\n"
         "# TYPE ingestd_jobs_total counter\n";
    for (const auto& [k, v] : m_jobs) {
        o << "ingestd_jobs_total{outcome=\"" << k.first << "\",type=\"" << k.second << "\"} " << v << "\n";
    }
    o << "# HELP ingestd_stage_duration_seconds Time spent in each stage of a job.\n"
         "# TYPE ingestd_stage_duration_seconds histogram\n";
    for (const auto& [name, h] : m_stages) {
        for (std::size_t i = 0; i < k_buckets.size(); ++i) {
            o << "ingestd_stage_duration_seconds_bucket{stage=\"" << name << "\",le=\"" << k_buckets[i]
              << "\"} " << h.counts[i] << "\n";
        }
        o << "ingestd_stage_duration_seconds_bucket{stage=\"" << name << "\",le=\"+Inf\"} " << h.count << "\n";
        o << "ingestd_stage_duration_seconds_sum{stage=\"" << name << "\"} " << h.sum << "\n";
        o << "ingestd_stage_duration_seconds_count{stage=\"" << name << "\"} " << h.count << "\n";
    }
    o << "# HELP ingestd_jobs_in_flight Jobs being processed now.\n# TYPE ingestd_jobs_in_flight gauge\n"
      << "ingestd_jobs_in_flight " << in_flight.load() << "\n";
    o << "# HELP ingestd_stream_lag Entries of the stream not yet delivered to the group.\n"
         "# TYPE ingestd_stream_lag gauge\ningestd_stream_lag "
      << stream_lag.load() << "\n";
    o << "# HELP ingestd_stream_pending Entries delivered to the group and not acknowledged.\n"
         "# TYPE ingestd_stream_pending gauge\ningestd_stream_pending "
      << stream_pending.load() << "\n";
    o << "# HELP ingestd_redis_errors_total Redis connection errors.\n"
         "# TYPE ingestd_redis_errors_total counter\ningestd_redis_errors_total "
      << redis_errors.load() << "\n";
    o << "# HELP ingestd_parser_crashes_total Parser helper processes that died mid-job.\n"
         "# TYPE ingestd_parser_crashes_total counter\ningestd_parser_crashes_total "
      << parser_crashes.load() << "\n";
    o << "# HELP ingestd_leases_lost_total Jobs abandoned because another worker took over their entry.\n"
         "# TYPE ingestd_leases_lost_total counter\ningestd_leases_lost_total "
      << leases_lost.load() << "\n";
    o << "# HELP ingestd_stream_trimmed_total Acknowledged entries trimmed from the stream.\n"
         "# TYPE ingestd_stream_trimmed_total counter\ningestd_stream_trimmed_total "
      << stream_trimmed.load() << "\n";
    o << "# HELP ingestd_redis_up Whether the worker is connected to Redis.\n"
         "# TYPE ingestd_redis_up gauge\ningestd_redis_up "
      << (redis_up.load() ? 1 : 0) << "\n";
    return o.str();
}

} // namespace worker

// The Prometheus text exposition of Metrics (format 0.0.4): every family with HELP and TYPE.
#include "worker/http/metrics.hpp"
#include "worker/http/process_metrics.hpp"

#include <array>
#include <sstream>

namespace worker {
namespace {

// A label value in the exposition format: backslash, quote and newline escaped.
std::string label_value(const std::string& v) {
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

void family(std::ostream& o, const char* name, const char* type, const char* help) {
    o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

// The single-sample families, in the order they are written.
struct Scalar {
    const char* name;
    const char* type;
    const char* help;
    std::atomic<long long> Metrics::*value;
};
constexpr std::array<Scalar, 11> k_scalars{{
    {"ingestd_jobs_in_flight", "gauge", "Jobs being processed now.", &Metrics::in_flight},
    {"ingestd_stream_lag", "gauge", "Entries of the stream not yet delivered to the group.", &Metrics::stream_lag},
    {"ingestd_stream_pending", "gauge", "Entries delivered to the group and not acknowledged.",
     &Metrics::stream_pending},
    {"ingestd_redis_errors_total", "counter", "Redis connection errors.", &Metrics::redis_errors},
    {"ingestd_parser_crashes_total", "counter", "Parser helper processes that died mid-job.", &Metrics::parser_crashes},
    {"ingestd_leases_lost_total", "counter", "Jobs abandoned because another worker took over their entry.",
     &Metrics::leases_lost},
    {"ingestd_stream_trimmed_total", "counter", "Acknowledged entries trimmed from the stream.",
     &Metrics::stream_trimmed},
    {"ingestd_dead_letter_entries", "gauge", "Entries in the dead-letter stream.", &Metrics::dead_letters},
    {"ingestd_bytes_hashed_total", "counter", "Bytes of input files hashed.", &Metrics::bytes_hashed},
    {"ingestd_deletions_total", "counter", "Delete events that turned a file into a tombstone.", &Metrics::deletions},
    {"ingestd_deleted_outputs_total", "counter", "Output keys (thumbnails, spilled text) removed for deleted files.",
     &Metrics::outputs_removed},
}};

void build_info_family(std::ostream& o) {
    family(o, "ingestd_build_info", "gauge", "ingestd's version and the libraries it was built with.");
    o << "ingestd_build_info{";
    bool first = true;
    for (const auto& [k, v] : Metrics::build_info()) {
        o << (first ? "" : ",") << k << "=\"" << label_value(v) << "\"";
        first = false;
    }
    o << "} 1\n";
}

} // namespace

void Metrics::render_histogram(std::ostream& o, const char* name, const std::string& labels, const Histogram& h) {
    const std::string open = "{" + labels + (labels.empty() ? "" : ",");
    for (std::size_t i = 0; i < k_buckets.size(); ++i) {
        o << name << "_bucket" << open << "le=\"" << k_buckets[i] << "\"} " << h.counts[i] << "\n";
    }
    o << name << "_bucket" << open << "le=\"+Inf\"} " << h.count << "\n";
    o << name << "_sum{" << labels << "} " << h.sum << "\n";
    o << name << "_count{" << labels << "} " << h.count << "\n";
}

// The families with labels besides jobs and stages: durations by type, step failures,
// helper restarts. Called with m_mu held.
void Metrics::render_labelled(std::ostream& o) const {
    family(o, "ingestd_job_duration_seconds", "histogram", "Wall-clock time of whole jobs, by detected type.");
    for (const auto& [kind, h] : m_job_durations) {
        render_histogram(o, "ingestd_job_duration_seconds", "type=\"" + label_value(kind) + "\"", h);
    }
    family(o, "ingestd_step_failures_total", "counter", "Steps that failed on a file's content, by step and code.");
    for (const auto& [k, v] : m_step_failures) {
        o << "ingestd_step_failures_total{step=\"" << k.first << "\",code=\"" << k.second << "\"} " << v << "\n";
    }
    family(o, "ingestd_helper_restarts_total", "counter",
           "Parser helpers started again after one stopped during a job, by reason.");
    for (const auto& [reason, v] : m_helper_restarts) {
        o << "ingestd_helper_restarts_total{reason=\"" << label_value(reason) << "\"} " << v << "\n";
    }
}

std::string Metrics::render() const {
    std::ostringstream o;
    std::lock_guard lock(m_mu);
    family(o, "ingestd_jobs_total", "counter", "Jobs finished, by outcome and detected type.");
    for (const auto& [k, v] : m_jobs) {
        o << "ingestd_jobs_total{outcome=\"" << k.first << "\",type=\"" << k.second << "\"} " << v << "\n";
    }
    family(o, "ingestd_stage_duration_seconds", "histogram", "Time spent in each stage of a job.");
    for (const auto& [name, h] : m_stages) {
        render_histogram(o, "ingestd_stage_duration_seconds", "stage=\"" + name + "\"", h);
    }
    render_labelled(o);
    for (const Scalar& s : k_scalars) {
        family(o, s.name, s.type, s.help);
        o << s.name << " " << (this->*s.value).load() << "\n";
    }
    build_info_family(o);
    family(o, "ingestd_redis_up", "gauge", "Whether the worker is connected to Redis.");
    o << "ingestd_redis_up " << (redis_up.load() ? 1 : 0) << "\n";
    family(o, "ingestd_storage_up", "gauge", "Whether the storage endpoint answers.");
    o << "ingestd_storage_up " << (storage_up.load() ? 1 : 0) << "\n";
    render_process_metrics(o);
    return o.str();
}

} // namespace worker

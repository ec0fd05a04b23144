#include "worker/http/metrics.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>

#include <magic.h>
#include <openssl/crypto.h>

namespace worker {

namespace {

long long now_minute() {
    using namespace std::chrono;
    return duration_cast<minutes>(system_clock::now().time_since_epoch()).count();
}

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

} // namespace

void Metrics::job(const std::string& outcome, const std::string& kind) {
    const long long minute = now_minute();
    std::lock_guard lock(m_mu);
    ++m_jobs[{outcome, kind}];
    Minute& m = m_minutes[static_cast<std::size_t>(minute % k_minutes)];
    if (m.start_unix != minute * 60) m = Minute{minute * 60, 0, 0};
    if (outcome == "done") ++m.done;
    if (outcome == "failed" || outcome == "dead") ++m.failed;
}

std::vector<Metrics::Minute> Metrics::recent_minutes(int n) const {
    n = std::clamp(n, 1, k_minutes);
    const long long current = now_minute();
    std::vector<Minute> out;
    std::lock_guard lock(m_mu);
    for (long long minute = current - n + 1; minute <= current; ++minute) {
        const Minute& m = m_minutes[static_cast<std::size_t>(minute % k_minutes)];
        out.push_back(m.start_unix == minute * 60 ? m : Minute{minute * 60, 0, 0});
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> Metrics::build_info() {
    return {{"version", INGESTD_VERSION},
            {"libvips", INGESTD_VIPS_VERSION},
            {"poppler", INGESTD_POPPLER_VERSION},
            {"tesseract", INGESTD_TESSERACT_VERSION},
            {"hiredis", INGESTD_HIREDIS_VERSION},
            {"openssl", OpenSSL_version(OPENSSL_VERSION_STRING)},
            {"libmagic", std::to_string(magic_version() / 100) + "." + std::to_string(magic_version() % 100)}};
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
            o << "ingestd_stage_duration_seconds_bucket{stage=\"" << name << "\",le=\"" << k_buckets[i] << "\"} "
              << h.counts[i] << "\n";
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
    o << "# HELP ingestd_dead_letter_entries Entries in the dead-letter stream.\n"
         "# TYPE ingestd_dead_letter_entries gauge\ningestd_dead_letter_entries "
      << dead_letters.load() << "\n";
    o << "# HELP ingestd_bytes_hashed_total Bytes of input files hashed.\n"
         "# TYPE ingestd_bytes_hashed_total counter\ningestd_bytes_hashed_total "
      << bytes_hashed.load() << "\n";
    o << "# HELP ingestd_build_info ingestd's version and the libraries it was built with.\n"
         "# TYPE ingestd_build_info gauge\ningestd_build_info{";
    bool first = true;
    for (const auto& [k, v] : build_info()) {
        o << (first ? "" : ",") << k << "=\"" << label_value(v) << "\"";
        first = false;
    }
    o << "} 1\n";
    o << "# HELP ingestd_redis_up Whether the worker is connected to Redis.\n"
         "# TYPE ingestd_redis_up gauge\ningestd_redis_up "
      << (redis_up.load() ? 1 : 0) << "\n";
    return o.str();
}

} // namespace worker

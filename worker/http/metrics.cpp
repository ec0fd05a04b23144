#include "worker/http/metrics.hpp"

#include <algorithm>
#include <chrono>

#include <magic.h>
#include <openssl/crypto.h>

namespace worker {

namespace {

long long now_minute() {
    using namespace std::chrono;
    return duration_cast<minutes>(system_clock::now().time_since_epoch()).count();
}

} // namespace

void Metrics::job(const std::string& outcome, const std::string& kind) {
    const long long minute = now_minute();
    const bool failed = outcome == "failed" || outcome == "partial";
    if (failed || outcome == "done") ++files_done;
    if (failed) ++files_failed;
    std::lock_guard lock(m_mu);
    ++m_jobs[{outcome, kind}];
    Minute& m = m_minutes[static_cast<std::size_t>(minute % k_minutes)];
    if (m.start_unix != minute * 60) m = Minute{minute * 60, 0, 0};
    if (outcome == "done") ++m.done;
    if (outcome == "failed" || outcome == "partial" || outcome == "dead") ++m.failed;
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

void Metrics::observe(Histogram& h, double seconds) {
    for (std::size_t i = 0; i < k_buckets.size(); ++i) {
        if (seconds <= k_buckets[i]) ++h.counts[i];
    }
    ++h.count;
    h.sum += seconds;
}

void Metrics::stage(const std::string& stage, double seconds) {
    std::lock_guard lock(m_mu);
    observe(m_stages[stage], seconds);
}

void Metrics::job_duration(const std::string& kind, double seconds) {
    std::lock_guard lock(m_mu);
    observe(m_job_durations[kind], seconds);
}

void Metrics::step_failure(const std::string& step, const std::string& code) {
    std::lock_guard lock(m_mu);
    ++m_step_failures[{step, code}];
}

void Metrics::helper_restart(const std::string& reason) {
    std::lock_guard lock(m_mu);
    ++m_helper_restarts[reason];
}

} // namespace worker

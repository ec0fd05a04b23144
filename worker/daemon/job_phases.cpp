// JobRunner's analysis stage. A file that may spend long in OCR (a PDF, a TIFF, a larger
// image) has its steps run apart when both are asked for: thumbnails first, committed at once
// under the job's fence (status stays processing, extraction_status pending), then the text;
// so that a scan's thumbnails appear in a second while its OCR goes on.
#include "extractors/sniff/ocr_time.hpp"
#include "jobs/metadata.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/job_state.hpp"
#include "worker/http/metrics.hpp"

namespace worker {

bool JobRunner::analyse_input(Job& job, int fd, const std::string& hash, const JobSpec& spec,
                              const PipelineOptions& options) {
    const bool apart = spec.step_text && spec.step_thumbnails && options.ocr_mode != core::OcrMode::off &&
                       extractors::may_take_ocr_time(fd, job.size);
    if (!apart) {
        job.result = m_analyse(fd, job.size, hash, spec, options);
        return true;
    }
    JobSpec thumbnails_only = spec;
    thumbnails_only.step_text = false;
    PipelineResult thumbnails = m_analyse(fd, job.size, hash, thumbnails_only, options);
    if (thumbnails.file_error_code) {
        job.result = std::move(thumbnails);
        return true;
    }
    if (!commit_thumbnails_early(job, thumbnails)) return false;
    JobSpec text_only = spec;
    text_only.step_thumbnails = false;
    job.result = join_steps(std::move(thumbnails), m_analyse(fd, job.size, hash, text_only, options));
    return true;
}

// Writes the thumbnails and commits their fields (fenced like the final commit); false when
// the entry is no longer this job's to commit. Throws core::FileError from the writes.
bool JobRunner::commit_thumbnails_early(Job& job, PipelineResult& thumbnails) {
    if (abandoned(job, "thumbnails")) return false;
    write_outputs(m_storage, thumbnails.outputs);
    thumbnails.outputs.clear();
    const auto file_error_field = [](const std::string& name) { return name == "error_code" || name == "error"; };
    Fields fields;
    for (const auto& kv : thumbnails.fields) {
        if (!file_error_field(kv.first)) fields.push_back(kv);
    }
    fields.emplace_back("extraction_status", "pending");
    std::vector<std::string> clear;
    for (const auto& name : thumbnails.clear) {
        if (!file_error_field(name)) clear.push_back(name);
    }
    const auto f = with_retry("thumbnails commit",
                              [&] { return m_queue.progress(m_redis, job.entry_id(), job.file_id(), fields, clear); });
    if (f == jobs::Fence::ok) {
        log::debug("thumbnails committed before the text",
                   {{"file_id", job.file_id()},
                    {"event_id", job.entry_id()},
                    {"ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - job.started)
                                              .count())}});
        return true;
    }
    m_metrics.job(jobs::to_string(f), "unknown");
    // Thumbnails written for a file deleted meanwhile must not outlive the tombstone.
    if (f == jobs::Fence::superseded && jobs::is_tombstone(m_redis, m_queue.names(), job.file_id())) {
        remove_outputs(job, "deleted while in flight");
    }
    log::info("event skipped",
              {{"file_id", job.file_id()}, {"event_id", job.entry_id()}, {"fence", jobs::to_string(f)}});
    return false;
}

} // namespace worker

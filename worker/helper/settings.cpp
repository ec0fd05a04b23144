#include "worker/helper/settings.hpp"

#include <filesystem>
#include <system_error>

namespace worker {

std::string helper_binary() {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return "ingestd-helper";
    return (self.parent_path() / "ingestd-helper").string();
}

HelperSettings HelperSettings::from(const Config& config) {
    HelperSettings s;
    s.memory_mb = static_cast<std::uint64_t>(config.job_memory_mb);
    s.max_file_bytes = config.max_file_bytes;
    s.preload_langs = config.ocr_mode == "off" ? "" : config.ocr_langs; // INGEST_OCR_MODE as configured
    s.warm_parsers = true; // a worker's helpers live for thousands of files
    return s;
}

} // namespace worker

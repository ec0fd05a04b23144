#pragma once

#include "worker/helper/settings.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace worker {

class Helper;
class HelperPool;

/// For `ingestd process`: the type is detected here, and only files that need a parser
/// (PDFs, images, text) go to a helper, started on first need, so that hashing-only runs
/// start no process. Not thread-safe.
class OnDemandHelper {
public:
    explicit OnDemandHelper(HelperSettings settings);
    ~OnDemandHelper();

    /// Starts the helper now, without waiting for it, when none runs yet: its start-up (loading
    /// its libraries, most of a tenth of a second) then overlaps the caller's own work.
    void start_early();

    /// Same contract as Helper::analyse; a file no step parses gets unparsed_result().
    PipelineResult analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                           const PipelineOptions& options);

private:
    HelperSettings m_settings;
    std::unique_ptr<HelperPool> m_pool;
    std::unique_ptr<Helper> m_helper;
};

} // namespace worker

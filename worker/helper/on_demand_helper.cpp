#include "worker/helper/on_demand_helper.hpp"

#include "extractors/sniff/content_type.hpp"
#include "worker/helper/pool.hpp"

namespace worker {

OnDemandHelper::OnDemandHelper(HelperSettings settings) : m_settings(std::move(settings)) {}

// Out of line, where Helper and HelperPool are complete. Members go in reverse order: the
// helper stops before its pool removes the scratch folders.
OnDemandHelper::~OnDemandHelper() = default;

void OnDemandHelper::start_early() {
    if (m_helper) return;
    m_pool = std::make_unique<HelperPool>(m_settings);
    m_helper = m_pool->make(); // starts the process (Helper's constructor), does not wait
}

PipelineResult OnDemandHelper::analyse(int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                                       const PipelineOptions& options) {
    const std::string mime = size == 0 ? "application/x-empty" : extractors::detect_content_type(fd);
    if (extractors::kind_of(mime) == extractors::Kind::other || size == 0) {
        return unparsed_result(size, hash, spec, mime); // nothing to parse
    }
    start_early();
    return m_helper->analyse(fd, size, hash, spec, options);
}

} // namespace worker

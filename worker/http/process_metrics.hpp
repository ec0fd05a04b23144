#pragma once

#include <ostream>

namespace worker {

/// Writes the standard process_* families of Prometheus client libraries (CPU seconds,
/// resident and virtual memory, open and maximum descriptors, start time) for this process,
/// read from /proc; a family whose source cannot be read is left out.
void render_process_metrics(std::ostream& o);

} // namespace worker

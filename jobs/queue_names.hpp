#pragma once

#include <string>

namespace jobs {

/// Names of everything ingestd touches in Redis: every key name is built here.
struct QueueNames {
    std::string stream = "ingest:uploads";
    std::string group = "ingestd";
    std::string consumer;
    std::string prefix = "ingest:";

    std::string dead_stream() const { return stream + ":dead"; }
    std::string results_stream() const { return prefix + "results"; }
    std::string status_channel() const { return prefix + "status"; }
    std::string metadata_key(const std::string& file_id) const { return prefix + "file:" + file_id; }
    std::string hash_index_key(const std::string& sha256) const { return prefix + "hash:" + sha256; }
};

} // namespace jobs

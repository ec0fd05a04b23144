#include "worker/cli/gc_sweep.hpp"

#include "core/layout.hpp"
#include "jobs/event.hpp"
#include "jobs/timestamp.hpp"
#include "worker/cli/output.hpp"
#include "worker/config/log.hpp"

#include <algorithm>
#include <set>

namespace worker::cli {
namespace {

// Keys judged (and removed) per round trip: bounds memory and the batch a store deletes at once.
constexpr std::size_t k_batch = 500;

// Whether an output of a file in this state is garbage: no metadata, a tombstone, or a
// final file that does not name it. Pending, processing and unknown states keep it (a
// worker may be writing it now).
bool orphaned(const jobs::OutputOwner& owner, const std::string& key) {
    if (!owner.exists) return true;
    if (owner.status == "deleted") return true;
    if (owner.status != "done" && owner.status != "failed") return false;
    return std::find(owner.outputs.begin(), owner.outputs.end(), key) == owner.outputs.end();
}

} // namespace

GcSweep::GcSweep(jobs::Redis& redis, const jobs::QueueNames& names, const Store& store, GcOptions options)
    : m_redis(redis), m_names(names), m_store(store),
      m_options(options), m_removed{{"original", 0}, {"output", 0}, {"temporary", 0}} {}

long long GcSweep::removed(const std::string& kind) const {
    for (const auto& [k, n] : m_removed) {
        if (k == kind) return n;
    }
    return 0;
}

void GcSweep::report(const char* kind, const std::string& key, const std::string& file_id) {
    for (auto& [k, n] : m_removed) {
        if (k == kind) ++n;
    }
    nlohmann::ordered_json line = {{"removed", kind}, {"key", key}, {"file_id", file_id}};
    if (m_options.dry_run) line["dry_run"] = "true";
    print_json(line);
    log::info(m_options.dry_run ? "gc would remove" : "gc removed",
              {{"kind", kind}, {"key", key}, {"file_id", file_id}});
}

void GcSweep::originals() {
    jobs::scan_tombstones(m_redis, m_names, [this](const jobs::Tombstone& t) {
        // A time that cannot be read keeps the bytes: deletion is not undone.
        const auto age = jobs::age_seconds(t.deleted_at);
        if (!age || *age < m_options.grace_s) return;
        if (jobs::storage_key_problem(t.storage_key).empty()) m_tombstones.push_back(t);
        if (m_tombstones.size() >= k_batch) remove_originals();
    });
    remove_originals();
}

// Removes the batch's bytes, then drops each storage_key from its tombstone; only the
// collector whose drop succeeded reports it, so two collectors at once report it once.
void GcSweep::remove_originals() {
    if (m_tombstones.empty()) return;
    std::vector<std::string> keys;
    for (const auto& t : m_tombstones) keys.push_back(t.storage_key);
    if (!m_options.dry_run) m_store.remove_many(keys);
    for (const auto& t : m_tombstones) {
        if (m_options.dry_run || jobs::forget_original(m_redis, m_names, t))
            report("original", t.storage_key, t.file_id);
    }
    m_tombstones.clear();
}

void GcSweep::outputs() {
    for (const char* prefix : {"thumbnails/", "text/"}) {
        m_store.list(prefix, [this](const std::string& key) { visit_output(key); });
    }
    judge_outputs();
}

void GcSweep::visit_output(const std::string& key) {
    bool temporary = false;
    const auto owner = core::output_owner(key, &temporary);
    if (!owner || !jobs::valid_file_id(*owner)) return; // not of our layout: never touched
    if (!temporary) {
        m_outputs.push_back({key, *owner});
        if (m_outputs.size() >= k_batch) judge_outputs();
        return;
    }
    const auto written = m_store.modified(key);
    if (!written || std::chrono::system_clock::now() - *written < m_options.temp_age) return;
    if (!m_options.dry_run) m_store.remove(key);
    report("temporary", key, *owner);
}

void GcSweep::judge_outputs() {
    if (m_outputs.empty()) return;
    std::vector<std::string> ids;
    for (const auto& c : m_outputs) ids.push_back(c.file_id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const std::vector<jobs::OutputOwner> owners = jobs::read_output_owners(m_redis, m_names, ids);
    std::vector<Candidate> garbage;
    for (const auto& c : m_outputs) {
        const auto at = std::lower_bound(ids.begin(), ids.end(), c.file_id) - ids.begin();
        if (orphaned(owners.at(static_cast<std::size_t>(at)), c.key)) garbage.push_back(c);
    }
    m_outputs.clear();
    std::vector<std::string> keys;
    for (const auto& c : garbage) keys.push_back(c.key);
    if (!m_options.dry_run) m_store.remove_many(keys);
    for (const auto& c : garbage) report("output", c.key, c.file_id);
}

} // namespace worker::cli

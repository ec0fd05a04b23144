#pragma once

#include "jobs/redis.hpp"
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/s3_server.hpp"
#include "tests/support/worker_process.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace testsupport {

/// The store an end-to-end test runs on (its gtest value parameter).
enum class StoreKind { filesystem, s3 };

/// "filesystem" or "s3", for parameterised test names.
std::string store_name(const ::testing::TestParamInfo<StoreKind>& info);

/// Stream entry or metadata fields, in order.
using Fields = std::vector<std::pair<std::string, std::string>>;

/// Polls `pred` every 50 ms until it holds (true) or `limit` passes (false). Redis being
/// away (jobs::RedisIoError) counts as "not yet".
template <class Pred> bool eventually(std::chrono::milliseconds limit, Pred pred) {
    const auto end = std::chrono::steady_clock::now() + limit;
    for (;;) {
        try {
            if (pred()) return true;
        } catch (const jobs::RedisIoError&) {
        }
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50)); // the poll interval
    }
}

/// Everything an end-to-end test of `ingestd worker` needs: a private redis-server on a free
/// loopback port, a temporary storage root, the worker environment, named worker processes
/// with one log file each, and the Redis reads that tests await. Uses the default names
/// (`ingest:uploads`, group `ingestd`, `ingest:file:<id>`, `ingest:results`). When the test
/// has failed, the destructor prints the end of every worker's log.
class WorkerFixture {
public:
    /// `append_only` turns on Redis's AOF (for tests that kill and restart Redis).
    explicit WorkerFixture(bool append_only = false);
    /// The same against a Redis the test runs itself (a TLS server, a Sentinel set): the
    /// fixture's connection and the workers use `redis_url`; server() is not to be called.
    explicit WorkerFixture(const std::string& redis_url);
    /// Kills the workers, then Redis, and removes the folder.
    ~WorkerFixture();

    /// The redis-server process (to kill and restart it).
    RedisServer& server() { return *m_server; }
    /// The test's own connection to it (reconnects after a restart).
    jobs::Redis& redis() { return m_redis; }
    /// A temporary folder for the logs and the files a test makes; removed at the end.
    const std::filesystem::path& dir() const { return m_dir.path(); }
    /// The storage root the workers read (under dir()).
    const std::filesystem::path& store() const { return m_store; }
    /// The environment every worker starts with (Redis URL, storage root, HTTP off, one
    /// OpenMP thread, two jobs); change it before `start`.
    std::map<std::string, std::string>& env() { return m_env; }

    /// Starts `ingestd worker` as consumer `name` with env() plus `extra`; a running worker of
    /// that name is SIGKILLed first. Its output goes to log_path(name).
    WorkerProcess& start(const std::string& name, const std::map<std::string, std::string>& extra = {});
    /// The worker started as `name`; throws std::out_of_range when there is none.
    WorkerProcess& worker(const std::string& name) { return *m_workers.at(name); }
    /// SIGKILLs worker `name`, reaps it and forgets it.
    void kill(const std::string& name);

    /// Where worker `name` writes its output.
    std::filesystem::path log_path(const std::string& name) const;
    /// The log of worker `name` so far ("" before it wrote anything).
    std::string log_of(const std::string& name) const;
    /// Waits until the log of `name` holds `needle` at or after byte `from`.
    bool wait_for_log(const std::string& name, const std::string& needle, std::chrono::milliseconds limit,
                      std::size_t from = 0) const;

    /// Puts the workers on `kind`: for s3, a private s3rver (bucket `uploads`, root
    /// `s3://uploads/in`) whose variables join env(). False, with `why`, when that server
    /// cannot run here (the test skips).
    bool use_store(StoreKind kind, std::string* why);
    /// The object store's server, or nullptr on the filesystem.
    S3Server* s3() const { return m_s3.get(); }

    /// Writes `bytes` at `key` under the storage root; on the object store the file is
    /// uploaded with boto3 before the next event is added.
    void put(const std::string& key, const std::string& bytes);
    /// Copies the file `from` to `key` under the storage root (uploaded likewise).
    void put_copy(const std::string& key, const std::filesystem::path& from);
    /// Uploads the files put since the last call (one client process); add() does it first.
    void upload_pending();
    /// The bytes of `key` in the workers' store (an output): "" when there is none.
    std::string read_output(const std::string& key) const;
    /// XADDs one upload event with these fields; returns the entry id.
    std::string add(const Fields& fields);
    /// XADDs `file_id` and `storage_key`, then `extra`; returns the entry id.
    std::string submit(const std::string& file_id, const std::string& storage_key, const Fields& extra = {});
    /// XADDs many events, pipelined 200 at a time.
    void add_all(const std::vector<Fields>& events);

    /// One metadata field of `file_id` ("" when absent).
    std::string field(const std::string& file_id, const std::string& name);
    /// All metadata of `file_id` (empty when there is none).
    Fields metadata(const std::string& file_id);
    /// The status is done or failed.
    bool is_final(const std::string& file_id);
    /// Every one of `file_ids` is final (one round trip).
    bool all_final(const std::vector<std::string>& file_ids);
    /// Waits for a final status: returns "done" or "failed", or "not final after N s: <status>".
    std::string wait_final(const std::string& file_id, std::chrono::seconds limit = std::chrono::seconds(120));
    /// Waits until the status is `want`.
    bool wait_status(const std::string& file_id, const std::string& want, std::chrono::seconds limit);

    /// Entries delivered to the worker group and not acknowledged (-1 before the group exists).
    long long pending();
    /// The consumer holding the first pending entry, or "".
    std::string pending_owner();
    /// Results-stream entries per file id whose status is `status` ("final": done or failed).
    std::map<std::string, int> results_count(const std::string& status);
    /// Clients in a blocking command (a worker waiting in XREADGROUP ... BLOCK).
    int blocked_clients();

    WorkerFixture(const WorkerFixture&) = delete;
    WorkerFixture& operator=(const WorkerFixture&) = delete;

private:
    explicit WorkerFixture(std::unique_ptr<RedisServer> server);
    WorkerFixture(std::nullptr_t, const std::string& redis_url);

    std::unique_ptr<RedisServer> m_server;
    TempDir m_dir;
    std::filesystem::path m_store;
    jobs::Redis m_redis;
    std::map<std::string, std::string> m_env;
    std::unique_ptr<S3Server> m_s3;
    std::vector<std::string> m_unsent; // keys put locally, not yet uploaded to m_s3
    std::map<std::string, std::unique_ptr<WorkerProcess>> m_workers;
    std::vector<std::string> m_names; // every name ever started, for the failure report
};

} // namespace testsupport

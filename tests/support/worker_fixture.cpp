#include "tests/support/worker_fixture.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include <gtest/gtest.h>

namespace testsupport {

namespace {

using namespace std::chrono_literals;

const std::string k_stream = "ingest:uploads";
const std::string k_group = "ingestd";

// The last `bytes` of `text`, enough to see why a test failed without drowning its output.
std::string tail(const std::string& text, std::size_t bytes) {
    return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

} // namespace

WorkerFixture::WorkerFixture(bool append_only) : WorkerFixture(std::make_unique<RedisServer>(append_only)) {}

WorkerFixture::WorkerFixture(const std::string& redis_url) : WorkerFixture(nullptr, redis_url) {}

WorkerFixture::WorkerFixture(std::unique_ptr<RedisServer> server) : WorkerFixture(nullptr, server->url()) {
    m_server = std::move(server);
}

WorkerFixture::WorkerFixture(std::nullptr_t, const std::string& redis_url)
    : m_store(m_dir.path() / "store"), m_redis(jobs::parse_redis_url(redis_url), 5000ms) {
    std::filesystem::create_directories(m_store);
    m_env = {{"INGEST_REDIS_URL", redis_url},
             {"INGEST_STORAGE_ROOT", m_store.string()},
             {"INGEST_CONCURRENCY", "2"},
             {"INGEST_HTTP_ADDR", "off"},
             {"OMP_THREAD_LIMIT", "1"}};
}

WorkerFixture::~WorkerFixture() {
    m_workers.clear();
    if (!::testing::Test::HasFailure()) return;
    for (const auto& name : m_names)
        std::cout << "---- worker " << name << " log\n" << tail(log_of(name), 3000) << "\n";
}

WorkerProcess& WorkerFixture::start(const std::string& name, const std::map<std::string, std::string>& extra) {
    auto env = m_env;
    for (const auto& [k, v] : extra) env[k] = v;
    env["INGEST_CONSUMER"] = name;
    if (std::find(m_names.begin(), m_names.end(), name) == m_names.end()) m_names.push_back(name);
    m_workers.erase(name);
    auto& w = m_workers[name];
    w = std::make_unique<WorkerProcess>(env, log_path(name));
    return *w;
}

void WorkerFixture::kill(const std::string& name) {
    auto it = m_workers.find(name);
    if (it == m_workers.end()) return;
    it->second->signal(SIGKILL);
    it->second->wait(10s);
    m_workers.erase(it);
}

std::filesystem::path WorkerFixture::log_path(const std::string& name) const {
    return m_dir.path() / ("worker-" + name + ".log");
}

std::string WorkerFixture::log_of(const std::string& name) const {
    std::error_code ec;
    return std::filesystem::exists(log_path(name), ec) ? read_file(log_path(name)) : std::string();
}

bool WorkerFixture::wait_for_log(const std::string& name, const std::string& needle, std::chrono::milliseconds limit,
                                 std::size_t from) const {
    return eventually(limit, [&] { return log_of(name).find(needle, from) != std::string::npos; });
}

std::string store_name(const ::testing::TestParamInfo<StoreKind>& info) {
    return info.param == StoreKind::s3 ? "s3" : "filesystem";
}

bool WorkerFixture::use_store(StoreKind kind, std::string* why) {
    if (kind == StoreKind::filesystem) return true;
    if (!S3Server::available(S3Kind::s3rver, why)) return false;
    m_s3 = std::make_unique<S3Server>();
    for (const auto& [k, v] : m_s3->env()) m_env[k] = v;
    m_env["INGEST_STORAGE_ROOT"] = "s3://uploads/in";
    return true;
}

void WorkerFixture::put(const std::string& key, const std::string& bytes) {
    write_file(m_store / key, bytes);
    if (m_s3) m_unsent.push_back(key);
}

void WorkerFixture::put_copy(const std::string& key, const std::filesystem::path& from) {
    std::filesystem::create_directories((m_store / key).parent_path());
    std::filesystem::copy_file(from, m_store / key, std::filesystem::copy_options::overwrite_existing);
    if (m_s3) m_unsent.push_back(key);
}

void WorkerFixture::upload_pending() {
    if (!m_s3 || m_unsent.empty()) return;
    m_s3->put_files(m_store, "in/", m_unsent);
    m_unsent.clear();
}

std::string WorkerFixture::read_output(const std::string& key) const {
    if (m_s3) return m_s3->get("in/" + key);
    std::error_code ec;
    return std::filesystem::is_regular_file(m_store / key, ec) ? read_file(m_store / key) : std::string();
}

std::string WorkerFixture::add(const Fields& fields) {
    upload_pending();
    std::vector<std::string> args = {"XADD", k_stream, "*"};
    for (const auto& [k, v] : fields) {
        args.push_back(k);
        args.push_back(v);
    }
    return m_redis.command(args).str;
}

std::string WorkerFixture::submit(const std::string& file_id, const std::string& storage_key, const Fields& extra) {
    Fields fields = {{"file_id", file_id}, {"storage_key", storage_key}};
    fields.insert(fields.end(), extra.begin(), extra.end());
    return add(fields);
}

void WorkerFixture::add_all(const std::vector<Fields>& events) {
    upload_pending();
    std::vector<std::vector<std::string>> batch;
    for (std::size_t i = 0; i < events.size(); ++i) {
        std::vector<std::string> args = {"XADD", k_stream, "*"};
        for (const auto& [k, v] : events[i]) {
            args.push_back(k);
            args.push_back(v);
        }
        batch.push_back(std::move(args));
        if (batch.size() == 200 || i + 1 == events.size()) {
            m_redis.pipeline(batch);
            batch.clear();
        }
    }
}

std::string WorkerFixture::field(const std::string& file_id, const std::string& name) {
    return m_redis.command({"HGET", "ingest:file:" + file_id, name}).str;
}

Fields WorkerFixture::metadata(const std::string& file_id) {
    return m_redis.command({"HGETALL", "ingest:file:" + file_id}).as_pairs();
}

bool WorkerFixture::is_final(const std::string& file_id) {
    const std::string status = field(file_id, "status");
    return status == "done" || status == "failed";
}

bool WorkerFixture::all_final(const std::vector<std::string>& file_ids) {
    std::vector<std::vector<std::string>> q;
    for (const auto& id : file_ids) q.push_back({"HGET", "ingest:file:" + id, "status"});
    for (const auto& r : m_redis.pipeline(q)) {
        if (r.str != "done" && r.str != "failed") return false;
    }
    return true;
}

std::string WorkerFixture::wait_final(const std::string& file_id, std::chrono::seconds limit) {
    std::string status;
    const bool final = eventually(limit, [&] {
        status = field(file_id, "status");
        return status == "done" || status == "failed";
    });
    return final ? status : "not final after " + std::to_string(limit.count()) + " s: " + status;
}

bool WorkerFixture::wait_status(const std::string& file_id, const std::string& want, std::chrono::seconds limit) {
    return eventually(limit, [&] { return field(file_id, "status") == want; });
}

long long WorkerFixture::pending() {
    const jobs::Reply r = m_redis.command({"XPENDING", k_stream, k_group});
    return r.is_array() && !r.elements.empty() ? r.elements[0].integer : -1;
}

std::string WorkerFixture::pending_owner() {
    const jobs::Reply r = m_redis.command({"XPENDING", k_stream, k_group, "-", "+", "10"});
    if (!r.is_array() || r.elements.empty() || r.elements[0].elements.size() < 2) return "";
    return r.elements[0].elements[1].str;
}

std::map<std::string, int> WorkerFixture::results_count(const std::string& status) {
    std::map<std::string, int> n;
    const jobs::Reply r = m_redis.command({"XRANGE", "ingest:results", "-", "+"});
    for (const auto& entry : r.elements) {
        std::string id, st;
        for (const auto& [k, v] : entry.elements.at(1).as_pairs()) {
            if (k == "file_id") id = v;
            if (k == "status") st = v;
        }
        if (status == "final" ? (st == "done" || st == "failed") : st == status) ++n[id];
    }
    return n;
}

int WorkerFixture::blocked_clients() {
    const std::string info = m_redis.command({"INFO", "clients"}).str;
    const auto at = info.find("blocked_clients:");
    return at == std::string::npos ? 0 : std::atoi(info.c_str() + at + 16);
}

} // namespace testsupport

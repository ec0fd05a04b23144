#include "tests/support/sentinel_set.hpp"

#include <fstream>
#include <stdexcept>
#include <thread>

namespace testsupport {
namespace {

// Polls `pred` every 100 ms for up to `limit`.
template <class Pred> bool poll(std::chrono::seconds limit, Pred pred) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!pred()) {
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(100)); // the poll interval
    }
    return true;
}

// Lines of a redis-cli answer that equal `word` (redis-cli prints one value a line).
int count_lines(const std::string& text, const std::string& word) {
    int n = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = std::min(text.find('\n', start), text.size());
        if (text.compare(start, end - start, word) == 0) ++n;
        start = end + 1;
    }
    return n;
}

} // namespace

SentinelSet::SentinelSet() {
    m_primary = std::make_unique<RedisServer>(true);
    RedisOptions replica;
    replica.extra_args = {"--replicaof", "127.0.0.1", std::to_string(m_primary->port())};
    m_replica = std::make_unique<RedisServer>(replica);
    for (int k = 0; k < 3; ++k) {
        RedisOptions sentinel;
        sentinel.sentinel_config = (m_dir.path() / ("sentinel" + std::to_string(k) + ".conf")).string();
        std::ofstream(sentinel.sentinel_config) << "sentinel monitor m 127.0.0.1 " << m_primary->port() << " 2\n"
                                                << "sentinel down-after-milliseconds m 1000\n"
                                                << "sentinel failover-timeout m 5000\n";
        m_sentinels.push_back(std::make_unique<RedisServer>(sentinel));
    }
    // Sentinels learn of the replica from INFO and of each other from hello messages
    // (every 2 s): without both, no failover could be agreed on.
    const bool ready = poll(std::chrono::seconds(30), [&] {
        for (const auto& s : m_sentinels) {
            if (count_lines(s->cli("SENTINEL replicas m"), "name") < 1) return false;
            if (count_lines(s->cli("SENTINEL sentinels m"), "name") < 2) return false;
        }
        return m_replica->cli("INFO replication").find("master_link_status:up") != std::string::npos;
    });
    if (!ready) throw std::runtime_error("the sentinels did not find the replica and each other within 30 s");
}

SentinelSet::~SentinelSet() {
    m_sentinels.clear();
}

std::string SentinelSet::url() const {
    std::string hosts;
    for (const auto& s : m_sentinels)
        hosts += (hosts.empty() ? "" : ",") + std::string("127.0.0.1:") + std::to_string(s->port());
    return "redis-sentinel://" + hosts + "/m/0";
}

int SentinelSet::primary_port() const {
    for (const auto& s : m_sentinels) {
        const std::string out = s->cli("SENTINEL get-master-addr-by-name m");
        const auto nl = out.find('\n');
        if (nl == std::string::npos) continue;
        try {
            return std::stoi(out.substr(nl + 1));
        } catch (const std::exception&) {
        }
    }
    return 0;
}

} // namespace testsupport

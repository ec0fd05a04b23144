#include "tests/delivery/delivery_fixture.hpp"

#include "tests/support/generated_file.hpp"
#include "tests/support/http_client.hpp"

#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

namespace delivery {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

unsigned chaos_seed() {
    if (const char* s = std::getenv("INGESTD_CHAOS_SEED"); s != nullptr && *s != '\0') return std::stoul(s);
    return std::random_device{}();
}

int http_status(int port, const std::string& path) {
    return testsupport::http_get(port, path).status;
}

std::string Figures::str() const {
    return std::to_string(events) + " events, " + std::to_string(kills) + " kills, " + std::to_string(commits) +
           " commits, " + std::to_string(duplicates) + " duplicates, " + std::to_string(lost) + " lost (" +
           std::to_string(restarted) + " started more than once)";
}

void DeliveryTest::SetUp() {
    fx.env()["INGEST_CLAIM_IDLE_MS"] = "1000";
    fx.env()["INGEST_SHUTDOWN_GRACE_S"] = "60";
}

bool DeliveryTest::pending_idle_for(long long ms) {
    jobs::Reply r = cmd({"XPENDING", k_stream, "ingestd", "IDLE", std::to_string(ms), "-", "+", "1"});
    return r.is_array() && !r.elements.empty();
}

Figures DeliveryTest::figures(const std::vector<std::string>& ids, std::size_t kills) {
    Figures f;
    f.events = ids.size();
    f.kills = kills;
    auto finals = fx.results_count("final");
    auto starts = fx.results_count("processing");
    for (const auto& id : ids) {
        if (starts[id] > 1) ++f.restarted;
        int c = finals.count(id) ? finals[id] : 0;
        f.commits += static_cast<std::size_t>(c);
        if (c > 1) ++f.duplicates;
        if (!fx.is_final(id)) ++f.lost;
    }
    return f;
}

void DeliveryTest::report(const Figures& f, std::chrono::steady_clock::time_point t0) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    RecordProperty("figures", f.str());
    std::cout << "[figures] " << ::testing::UnitTest::GetInstance()->current_test_info()->name() << ": " << f.str()
              << " in " << static_cast<int>(s) << " s\n";
}

void DeliveryTest::expect_all_done_once(const std::vector<std::string>& ids, const Figures& f) {
    EXPECT_EQ(f.lost, 0u) << f.str();
    EXPECT_EQ(f.duplicates, 0u) << f.str();
    EXPECT_EQ(f.commits, ids.size()) << f.str();
    std::size_t not_done = 0;
    std::string which;
    for (const auto& id : ids) {
        if (meta(id, "status") == "done") continue;
        ++not_done;
        which += " " + id + "=" + meta(id, "status") + "/" + meta(id, "error_code") + " (" + meta(id, "error") +
                 ", attempts " + meta(id, "attempts") + ")";
    }
    EXPECT_EQ(not_done, 0u) << "events final but not done:" << which << lines_naming(which);
    EXPECT_TRUE(testsupport::eventually(15s, [&] { return fx.pending() == 0; }))
        << fx.pending() << " entries still pending";
}

// The lines of the workers' logs (every life of a, b and c) that name an id of `which` (its
// "<id>=status" words): how each delivery of a failed event went.
std::string DeliveryTest::lines_naming(const std::string& which) {
    std::vector<std::string> ids;
    std::size_t at = 0;
    while ((at = which.find('=', at)) != std::string::npos) {
        std::size_t from = which.rfind(' ', at) + 1;
        ids.push_back("file_id=" + which.substr(from, at - from) + " ");
        ++at;
    }
    std::string out;
    for (const char* w : {"a", "b", "c"}) {
        std::istringstream log(fx.log_of(w));
        for (std::string line; std::getline(log, line);) {
            for (const auto& id : ids) {
                if (line.find(id) != std::string::npos) out += std::string("\n[") + w + "] " + line;
            }
        }
    }
    return out;
}

std::vector<fs::path> DeliveryTest::make_images() {
    std::vector<fs::path> images;
    for (const char* name : {"mix.png", "mix.gif", "mix.webp", "mix.jpg"}) {
        images.push_back(fx.dir() / name);
        testsupport::write_image(images.back(), 96 + static_cast<int>(images.size()) * 16, 64);
    }
    return images;
}

std::vector<std::string> DeliveryTest::submit_mixed(int n, const std::string& prefix) {
    const std::vector<fs::path> images = make_images();
    std::mt19937 rng(12345);
    std::vector<std::string> ids;
    std::vector<testsupport::Fields> events;
    for (int i = 0; i < n; ++i) {
        std::string id = prefix + std::to_string(i);
        std::string key = "up/" + id + ".blob";
        switch (i % 10) {
        case 6:
            fx.put(key, "{\"n\": " + std::to_string(i) + ", \"kind\": \"json\"}\n");
            break;
        case 7:
            fx.put(key, "<html><body><p>page " + std::to_string(i) + "</p></body></html>\n");
            break;
        case 8:
            fx.put_copy(key, images[static_cast<std::size_t>(i / 10) % images.size()]);
            break;
        case 9: {
            std::string bytes(64 + rng() % 2000, '\0');
            for (auto& c : bytes) c = static_cast<char>(rng());
            fx.put(key, bytes);
            break;
        }
        default: {
            std::string text;
            int lines = 1 + static_cast<int>(rng() % 200);
            for (int l = 0; l < lines; ++l) text += "line " + std::to_string(l) + " of document " + id + "\n";
            fx.put(key, text);
        }
        }
        events.push_back({{"file_id", id}, {"storage_key", key}, {"name", id + ".bin"}});
        ids.push_back(id);
    }
    fx.add_all(events);
    return ids;
}

void DeliveryTest::put_slow_pdf(const std::string& key, int pages) {
    fx.put(key, testsupport::scanned_text_pdf(fx.dir(), pages));
}

} // namespace delivery

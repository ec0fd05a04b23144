#include "worker/cli/cli.hpp"

#include "extractors/sniff/ocr_langs.hpp"
#include "jobs/event.hpp"
#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "worker/config/config.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/daemon.hpp"
#include "worker/helper/pool.hpp"
#include "worker/helper/process/helper.hpp"
#include "worker/pipeline/pipeline.hpp"
#include "worker/storage/store.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace worker {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;
using Clock = std::chrono::steady_clock;

constexpr int k_exit_ok = 0, k_exit_failed = 1, k_exit_usage = 2, k_exit_unknown = 3;

void print_json(const nlohmann::ordered_json& j) {
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

nlohmann::ordered_json object_of(const std::string& file_id, const Pairs& fields) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    if (!file_id.empty()) j["file_id"] = file_id;
    for (const auto& [k, v] : fields) {
        if (k != "file_id") j[k] = v;
    }
    return j;
}

std::string field_of(const Pairs& fields, const std::string& key) {
    for (const auto& [k, v] : fields) {
        if (k == key) return v;
    }
    return {};
}

bool is_final(const Pairs& fields) {
    auto s = field_of(fields, "status");
    return s == "done" || s == "failed";
}

bool any_failure(const Pairs& fields) {
    return field_of(fields, "status") == "failed" || field_of(fields, "extraction_status") == "failed" ||
           field_of(fields, "thumbnail_status") == "failed";
}

std::string random_hex(int n) {
    static thread_local std::mt19937_64 rng(std::random_device{}());
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string s;
    while (static_cast<int>(s.size()) < n) {
        auto v = rng();
        for (int i = 0; i < 16 && static_cast<int>(s.size()) < n; ++i, v >>= 4) s.push_back(k_digits[v & 0xF]);
    }
    return s;
}

jobs::Redis connect(const Config& c) {
    return jobs::Redis(jobs::parse_redis_url(c.redis_url), std::chrono::milliseconds(5000));
}

Pairs hgetall(jobs::Redis& redis, const std::string& key) {
    jobs::Reply r = redis.command({"HGETALL", key});
    if (r.is_error()) throw std::runtime_error("HGETALL: " + r.str);
    return r.as_pairs();
}

// ---- process -------------------------------------------------------------------------

int cmd_process(const Config& config, const std::vector<std::string>& files, const std::string& id,
                const std::string& out_dir, const std::string& steps) {
    if (!id.empty() && files.size() != 1) {
        std::cerr << "ingestd process: --id needs exactly one FILE\n";
        return k_exit_usage;
    }
    if (!id.empty() && !jobs::valid_file_id(id)) {
        std::cerr << "ingestd process: invalid --id: expected [A-Za-z0-9][A-Za-z0-9._:-]{0,127}, got \"" << id
                  << "\"\n";
        return k_exit_usage;
    }
    auto parsed = jobs::parse_event("0-0", {{"file_id", "x"}, {"storage_key", "x"}, {"steps", steps}});
    if (parsed.verdict != jobs::ParsedEntry::Verdict::ok) {
        std::cerr << "ingestd process: invalid --steps: expected text, thumbnails or both, got \"" << steps << "\"\n";
        return k_exit_usage;
    }
    std::unique_ptr<Store> out;
    try {
        out = open_store(out_dir, true);
    } catch (const core::FileError& e) {
        std::cerr << "ingestd process: " << e.what() << "\n";
        return k_exit_usage;
    }
    PipelineOptions options = pipeline_options(config);
    options.pdf_threads = machine_cores(); // one file at a time: a PDF's text layer may use every core
    // Parsers run in a sandboxed helper process, started only when a file needs one.
    HelperSettings helper_settings = HelperSettings::from(config);
    helper_settings.preload_langs.clear();
    helper_settings.warm_parsers = false; // one run of a few files: warm only what they need
    OnDemandHelper helper(helper_settings);
    int rc = k_exit_ok;
    for (const auto& path : files) {
        const auto started = Clock::now();
        const std::string started_at = jobs::utc_now_rfc3339();
        JobSpec spec;
        spec.step_text = parsed.event.step_text;
        spec.step_thumbnails = parsed.event.step_thumbnails;
        PipelineResult result;
        std::string file_id = id;
        try {
            core::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
            if (!fd) {
                throw core::FileError(errno == ENOENT ? core::ErrorCode::storage_missing
                                                      : core::ErrorCode::storage_error,
                                      "The file cannot be opened: " + std::string(std::strerror(errno)) + ".");
            }
            struct stat st {};
            if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
                throw core::FileError(core::ErrorCode::not_regular_file, "The path is not a regular file.");
            }
            auto size = static_cast<std::uint64_t>(st.st_size);
            if (size > config.max_file_bytes) {
                throw core::FileError(core::ErrorCode::too_large,
                                      "The file is " + std::to_string(size) + " bytes, over the limit of " +
                                          std::to_string(config.max_file_bytes) + " bytes.");
            }
            ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
            std::string hash = hash_and_check(fd.get(), size, spec);
            if (file_id.empty()) file_id = hash;
            spec.file_id = file_id;
            options.deadline = started + std::chrono::seconds(config.job_timeout_s);
            result = helper.analyse(fd.get(), size, hash, spec, options);
            for (const auto& o : result.outputs) out->write(o.key, o.bytes);
        } catch (const core::FileError& e) {
            result = file_failure(e.code(), e.what());
        }
        Pairs fields = std::move(result.fields);
        fields.insert(fields.begin(), {"status", !result.file_error_code ? "done" : "failed"});
        fields.emplace_back("started_at", started_at);
        fields.emplace_back("finished_at", jobs::utc_now_rfc3339());
        fields.emplace_back(
            "duration_ms",
            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()));
        fields.emplace_back("steps", parsed.event.steps);
        fields.emplace_back("pipeline_version", pipeline_version(config.ocr_langs));
        auto j = object_of(file_id, fields);
        j["path"] = path;
        print_json(j);
        if (any_failure(fields)) rc = k_exit_failed;
    }
    return rc;
}

// ---- submit / status -----------------------------------------------------------------

// Waits until the metadata of `file_id` exists and is final or `deadline` passes.
std::optional<Pairs> wait_final(jobs::Redis& redis, const std::string& key, Clock::time_point deadline, bool& exists) {
    exists = false;
    for (;;) {
        Pairs fields = hgetall(redis, key);
        exists = !fields.empty();
        if (exists && is_final(fields)) return fields;
        if (Clock::now() >= deadline) return exists ? std::optional<Pairs>(fields) : std::nullopt;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

int cmd_submit(const Config& config, const std::vector<std::string>& files, bool wait, int timeout_s,
               const std::string& steps) {
    auto parsed = jobs::parse_event("0-0", {{"file_id", "x"}, {"storage_key", "x"}, {"steps", steps}});
    if (parsed.verdict != jobs::ParsedEntry::Verdict::ok) {
        std::cerr << "ingestd submit: invalid --steps: expected text, thumbnails or both, got \"" << steps << "\"\n";
        return k_exit_usage;
    }
    const std::unique_ptr<Store> store = open_store(config.storage_root, true);
    const Store& storage = *store;
    auto names = queue_names(config);
    jobs::Redis redis = connect(config);
    std::vector<std::string> ids;
    for (const auto& path : files) {
        core::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        struct stat st {};
        if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
            std::cerr << "ingestd submit: cannot read " << path << "\n";
            return k_exit_usage;
        }
        const std::string file_id = "f" + random_hex(31);
        const std::string key = "uploads/" + file_id.substr(1, 2) + "/" + file_id;
        storage.write_from(key, fd.get());
        std::string name = std::filesystem::path(path).filename().string();
        Pairs meta = {{"status", "pending"},
                      {"storage_key", key},
                      {"steps", parsed.event.steps},
                      {"name", name},
                      {"extraction_status", "pending"},
                      {"thumbnail_status", "pending"},
                      {"submitted_at", jobs::utc_now_rfc3339()}};
        std::vector<std::string> hset = {"HSET", names.metadata_key(file_id)};
        for (auto& [k, v] : meta) {
            hset.push_back(k);
            hset.push_back(v);
        }
        auto replies = redis.pipeline({
            {"MULTI"},
            hset,
            {"XADD", names.stream, "*", "file_id", file_id, "storage_key", key, "name", name, "size",
             std::to_string(st.st_size), "steps", parsed.event.steps},
            {"XADD", names.results_stream(), "MAXLEN", "~", "100000", "*", "file_id", file_id, "status", "pending",
             "event_id", ""},
            {"EXEC"},
        });
        const jobs::Reply& exec = replies.back();
        if (!exec.is_array() || exec.elements.size() < 3 || exec.elements[1].is_error()) {
            std::cerr << "ingestd submit: Redis refused the event: "
                      << (exec.is_error() ? exec.str : "transaction failed") << "\n";
            return k_exit_failed;
        }
        const std::string event_id = exec.elements[1].str;
        nlohmann::ordered_json pub = {{"file_id", file_id}, {"status", "pending"}, {"event_id", event_id}};
        redis.command({"PUBLISH", names.status_channel(), pub.dump()});
        ids.push_back(file_id);
        if (!wait) {
            print_json({{"file_id", file_id}, {"storage_key", key}, {"event_id", event_id}});
        }
    }
    if (!wait) return k_exit_ok;
    int rc = k_exit_ok;
    const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
    for (const auto& id : ids) {
        bool exists = false;
        auto fields = wait_final(redis, names.metadata_key(id), deadline, exists);
        Pairs f = fields.value_or(Pairs{});
        print_json(object_of(id, f));
        if (!is_final(f) || any_failure(f)) rc = k_exit_failed;
    }
    return rc;
}

int cmd_status(const Config& config, const std::vector<std::string>& ids, bool wait, int timeout_s) {
    auto names = queue_names(config);
    jobs::Redis redis = connect(config);
    int rc = k_exit_ok;
    const auto deadline = Clock::now() + std::chrono::seconds(timeout_s);
    for (const auto& id : ids) {
        Pairs fields;
        if (wait) {
            bool exists = false;
            auto got = wait_final(redis, names.metadata_key(id), deadline, exists);
            if (!exists) {
                std::cerr << "ingestd status: unknown file id " << id << "\n";
                rc = k_exit_unknown;
                continue;
            }
            fields = *got;
            if (!is_final(fields)) {
                std::cerr << "ingestd status: " << id << " not final after " << timeout_s << " s\n";
                if (rc == k_exit_ok) rc = k_exit_failed;
            }
        } else {
            fields = jobs::valid_file_id(id) ? hgetall(redis, names.metadata_key(id)) : Pairs{};
            if (fields.empty()) {
                std::cerr << "ingestd status: unknown file id " << id << "\n";
                rc = k_exit_unknown;
                continue;
            }
        }
        print_json(object_of(id, fields));
    }
    return rc;
}

// ---- dead / reconcile -------------------------------------------------------------------

int cmd_dead_list(const Config& config) {
    auto names = queue_names(config);
    jobs::Redis redis = connect(config);
    jobs::Reply r = redis.command({"XRANGE", names.dead_stream(), "-", "+"});
    if (r.is_error()) throw std::runtime_error("XRANGE: " + r.str);
    for (const auto& e : r.elements) {
        if (e.elements.size() < 2) continue;
        const Pairs fields = e.elements[1].as_pairs();
        auto j = object_of(field_of(fields, "file_id"), fields);
        j["dead_id"] = e.elements[0].str;
        print_json(j);
    }
    return k_exit_ok;
}

int cmd_dead_retry(const Config& config, const std::vector<std::string>& ids) {
    auto names = queue_names(config);
    jobs::Redis redis = connect(config);
    std::set<std::string> wanted(ids.begin(), ids.end());
    jobs::Reply r = redis.command({"XRANGE", names.dead_stream(), "-", "+"});
    if (r.is_error()) throw std::runtime_error("XRANGE: " + r.str);
    for (const auto& e : r.elements) {
        if (e.elements.size() < 2) continue;
        Pairs fields = e.elements[1].as_pairs();
        std::string file_id = field_of(fields, "file_id");
        if (!wanted.empty() && !wanted.count(file_id)) continue;
        std::vector<std::string> xadd = {"XADD", names.stream, "*"};
        for (const auto& [k, v] : fields) {
            if (k == "dead_reason" || k == "dead_deliveries" || k == "dead_source_id") continue;
            xadd.push_back(k);
            xadd.push_back(v);
        }
        if (xadd.size() == 3) xadd.insert(xadd.end(), {"dead_retry", "1"}); // an entry needs a field
        auto replies = redis.pipeline({{"MULTI"}, xadd, {"XDEL", names.dead_stream(), e.elements[0].str}, {"EXEC"}});
        const jobs::Reply& exec = replies.back();
        if (!exec.is_array() || exec.elements.empty() || exec.elements[0].is_error()) {
            std::cerr << "ingestd dead retry: Redis refused the retry of " << e.elements[0].str << "\n";
            return k_exit_failed;
        }
        print_json({{"file_id", file_id}, {"event_id", exec.elements[0].str}, {"dead_id", e.elements[0].str}});
    }
    return k_exit_ok;
}

// Seconds since an RFC 3339 UTC time written by us; nullopt when unparsable.
std::optional<double> age_of(const std::string& ts) {
    std::tm tm{};
    int ms = 0;
    if (ts.size() < 20 || std::sscanf(ts.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                      &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) < 6) {
        return std::nullopt;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    std::time_t t = timegm(&tm);
    auto now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    return now - (static_cast<double>(t) + ms / 1000.0);
}

int cmd_reconcile(const Config& config, double older_than) {
    auto names = queue_names(config);
    jobs::Redis redis = connect(config);
    // File ids that still have a live stream entry: undelivered, or pending in the group.
    std::set<std::string> live;
    std::string last_delivered = "0-0";
    jobs::Reply groups = redis.command({"XINFO", "GROUPS", names.stream});
    if (groups.is_array()) {
        for (const auto& g : groups.elements) {
            auto p = g.as_pairs();
            if (field_of(p, "name") == names.group) last_delivered = field_of(p, "last-delivered-id");
        }
    }
    auto collect = [&](const jobs::Reply& entries) {
        for (const auto& e : entries.elements) {
            if (e.elements.size() >= 2) live.insert(field_of(e.elements[1].as_pairs(), "file_id"));
        }
    };
    collect(redis.command({"XRANGE", names.stream, "(" + last_delivered, "+"}));
    jobs::Reply pend = redis.command({"XPENDING", names.stream, names.group, "-", "+", "100000"});
    if (pend.is_array()) {
        std::vector<std::vector<std::string>> fetch;
        for (const auto& row : pend.elements) {
            if (!row.elements.empty())
                fetch.push_back({"XRANGE", names.stream, row.elements[0].str, row.elements[0].str});
        }
        for (std::size_t i = 0; i < fetch.size(); i += 500) {
            std::vector<std::vector<std::string>> batch(fetch.begin() + static_cast<long>(i),
                                                        fetch.begin() +
                                                            static_cast<long>(std::min(fetch.size(), i + 500)));
            for (const auto& r : redis.pipeline(batch)) collect(r);
        }
    }
    std::string cursor = "0";
    const std::string pattern = names.prefix + "file:*";
    const std::size_t prefix_len = names.prefix.size() + 5;
    do {
        jobs::Reply r = redis.command({"SCAN", cursor, "MATCH", pattern, "COUNT", "1000"});
        if (!r.is_array() || r.elements.size() < 2) break;
        cursor = r.elements[0].str;
        for (const auto& k : r.elements[1].elements) {
            std::string file_id = k.str.substr(prefix_len);
            jobs::Reply m = redis.command({"HMGET", k.str, "status", "storage_key", "steps", "started_at",
                                           "submitted_at", "declared_content_type", "name", "owner"});
            if (!m.is_array() || m.elements.size() < 8) continue;
            const std::string status = m.elements[0].str;
            if (status != "pending" && status != "processing") continue;
            const std::string key = m.elements[1].str;
            if (key.empty() || live.count(file_id)) continue;
            std::string ts = status == "processing" ? m.elements[3].str : m.elements[4].str;
            if (ts.empty()) ts = m.elements[3].str.empty() ? m.elements[4].str : m.elements[3].str;
            auto age = age_of(ts);
            if (age && *age < older_than) continue;
            std::vector<std::string> xadd = {"XADD", names.stream, "*", "file_id", file_id, "storage_key", key};
            if (!m.elements[2].str.empty()) xadd.insert(xadd.end(), {"steps", m.elements[2].str});
            if (!m.elements[5].str.empty()) xadd.insert(xadd.end(), {"content_type", m.elements[5].str});
            if (!m.elements[6].str.empty()) xadd.insert(xadd.end(), {"name", m.elements[6].str});
            if (!m.elements[7].str.empty()) xadd.insert(xadd.end(), {"owner", m.elements[7].str});
            jobs::Reply added = redis.command(xadd);
            if (added.is_error()) throw std::runtime_error("XADD: " + added.str);
            live.insert(file_id);
            print_json({{"file_id", file_id}, {"status", status}, {"event_id", added.str}});
        }
    } while (cursor != "0");
    return k_exit_ok;
}

// ---- command line -----------------------------------------------------------------------

void add_config_flags(CLI::App* app, std::map<std::string, std::string>& flags,
                      std::map<std::string, std::string>& storage) {
    for (const auto& s : settings()) {
        std::string env = s.env;
        app->add_option_function<std::string>(
               std::string("--") + s.flag, [&flags, env](const std::string& v) { flags[env] = v; }, s.help)
            ->envname("")
            ->group("Configuration (each also from its INGEST_* environment variable)");
    }
    (void)storage;
}

std::string one_line(std::string s) {
    for (char& c : s) {
        if (c == '\n') c = ' ';
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// CLI11 names flags in its errors; say which INGEST_* variable a flag stands for.
std::string with_env_names(std::string msg) {
    for (const auto& s : settings()) {
        std::string flag = std::string("--") + s.flag;
        auto pos = msg.find(flag);
        if (pos != std::string::npos) {
            msg.insert(pos + flag.size(), std::string(" (") + s.env + ")");
            break;
        }
    }
    return msg;
}

} // namespace

int run(int argc, char** argv) {
    CLI::App app{"ingestd: turns uploaded files into searchable, previewable records", "ingestd"};
    app.require_subcommand(1, 1);
    app.set_version_flag("--version", std::string("ingestd ") + "0.1.0");
    std::map<std::string, std::string> flags, unused;

    auto* worker_cmd = app.add_subcommand("worker", "the daemon: consume the stream until SIGTERM/SIGINT");
    add_config_flags(worker_cmd, flags, unused);

    std::vector<std::string> files;
    std::string id, out_dir = "./ingest-out", steps = "text,thumbnails";
    auto* process_cmd = app.add_subcommand("process", "run the whole pipeline on local files, without Redis");
    process_cmd->add_option("FILE", files, "files to process")->required();
    process_cmd->add_option("--id", id, "file_id for a single FILE (default: its SHA-256)");
    process_cmd->add_option("--out", out_dir, "folder for thumbnails and spilled text (default ./ingest-out)");
    process_cmd->add_option("--steps", steps, "text,thumbnails (default both)");
    add_config_flags(process_cmd, flags, unused);

    bool wait = false;
    int timeout_s = 300;
    auto* submit_cmd = app.add_subcommand("submit", "store files, append their events, print file_id and storage_key");
    submit_cmd->add_option("FILE", files, "files to submit")->required();
    submit_cmd->add_flag("--wait", wait, "wait until each is final and print its metadata");
    submit_cmd->add_option("--timeout", timeout_s, "seconds to wait (default 300)")->check(CLI::PositiveNumber);
    submit_cmd->add_option("--steps", steps, "text,thumbnails (default both)");
    add_config_flags(submit_cmd, flags, unused);

    std::vector<std::string> ids;
    auto* status_cmd = app.add_subcommand("status", "print the metadata of files (exit 3 if unknown)");
    status_cmd->add_option("FILE_ID", ids, "file ids")->required();
    status_cmd->add_flag("--wait", wait, "wait until the metadata exists and is final");
    status_cmd->add_option("--timeout", timeout_s, "seconds to wait (default 300)")->check(CLI::PositiveNumber);
    add_config_flags(status_cmd, flags, unused);

    auto* dead_cmd = app.add_subcommand("dead", "manage the dead-letter stream");
    dead_cmd->require_subcommand(1, 1);
    auto* dead_list = dead_cmd->add_subcommand("list", "print the dead-lettered events");
    add_config_flags(dead_list, flags, unused);
    auto* dead_retry = dead_cmd->add_subcommand("retry", "re-append dead-lettered events (all, or those of FILE_IDs)");
    dead_retry->add_option("FILE_ID", ids, "file ids");
    add_config_flags(dead_retry, flags, unused);

    double older_than = 0;
    auto* reconcile_cmd = app.add_subcommand(
        "reconcile", "re-append the event of files left pending/processing with no pending stream entry");
    reconcile_cmd->add_option("--older-than", older_than, "seconds")->required()->check(CLI::NonNegativeNumber);
    add_config_flags(reconcile_cmd, flags, unused);

    // Internal: `ingestd helper ...` runs the parser helper (ingestd-helper beside this
    // binary, which alone links the parser libraries) with the same arguments.
    std::vector<std::string> helper_rest;
    auto* helper_cmd = app.add_subcommand("helper", "internal: a sandboxed parser process")->group("");
    helper_cmd->allow_extras();
    helper_cmd->prefix_command();

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "ingestd: " << one_line(with_env_names(e.what())) << " (see ingestd --help)\n";
        return k_exit_usage;
    }

    if (*helper_cmd) {
        const std::string binary = helper_binary();
        std::vector<std::string> args = {binary, "helper"};
        for (const auto& extra : helper_cmd->remaining()) args.push_back(extra);
        std::vector<char*> argv_out;
        for (auto& arg : args) argv_out.push_back(arg.data());
        argv_out.push_back(nullptr);
        ::execv(binary.c_str(), argv_out.data());
        std::cerr << "ingestd: cannot run " << binary << ": " << std::strerror(errno) << "\n";
        return 1;
    }

    Config config;
    try {
        config = load_config(flags);
    } catch (const ConfigError& e) {
        std::cerr << "ingestd: " << e.what() << "\n";
        return k_exit_usage;
    }
    log::setup(config.log_format, config.log_level);

    // The parsers live in ingestd-helper beside this binary: without it every file would
    // end `crashed`, so a worker or a process run refuses to start instead.
    if (*worker_cmd || *process_cmd) {
        const std::string helper = helper_binary();
        if (::access(helper.c_str(), X_OK) != 0) {
            std::cerr << "ingestd: the parser helper " << helper << " is missing or not executable ("
                      << std::strerror(errno) << "); install ingestd-helper beside ingestd\n";
            return k_exit_usage;
        }
    }

    try {
        if (*worker_cmd) {
            try {
                extractors::check_ocr_languages(config.ocr_langs);
            } catch (const std::exception& e) {
                std::cerr << "ingestd: invalid INGEST_OCR_LANGS: " << e.what() << "\n";
                return k_exit_usage;
            }
            return run_daemon(config);
        }
        if (*process_cmd) {
            if (config.ocr_mode != "off") {
                try {
                    extractors::check_ocr_languages(config.ocr_langs);
                } catch (const std::exception& e) {
                    std::cerr << "ingestd: invalid INGEST_OCR_LANGS: " << e.what() << "\n";
                    return k_exit_usage;
                }
            }
            return cmd_process(config, files, id, out_dir, steps);
        }
        if (*submit_cmd) return cmd_submit(config, files, wait, timeout_s, steps);
        if (*status_cmd) return cmd_status(config, ids, wait, timeout_s);
        if (*dead_list) return cmd_dead_list(config);
        if (*dead_retry) return cmd_dead_retry(config, ids);
        if (*reconcile_cmd) return cmd_reconcile(config, older_than);
    } catch (const jobs::RedisIoError& e) {
        std::cerr << "ingestd: " << e.what() << " (INGEST_REDIS_URL=" << config.redis_url << ")\n";
        return k_exit_failed;
    }
    return k_exit_usage;
}

} // namespace worker

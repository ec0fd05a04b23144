#include "jobs/admin.hpp"
#include "jobs/queue.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"
#include "worker/storage/store.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <random>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace worker::cli {
namespace {

struct SubmitFlags {
    std::vector<std::string> files;
    WaitFlags wait;
    std::string steps = "text,thumbnails";
    std::string ocr_langs; // the events' ocr_langs; empty: the workers' INGEST_OCR_LANGS
};

void add_submit_flags(CLI::App& app, SubmitFlags& flags) {
    app.add_option("FILE", flags.files, "files to submit")->type_name("PATH")->required();
    add_wait_flags(app, flags.wait, "wait until each is final and print its metadata");
    app.add_option("--steps", flags.steps, "text,thumbnails (default both)")->type_name("STEPS");
    // For submit, --ocr-langs is the event's field, not the worker setting INGEST_OCR_LANGS
    // (which submit neither reads nor offers): the workers check that the data is installed.
    app.add_option("--ocr-langs", flags.ocr_langs,
                   "the files' OCR languages, put on each event as ocr_langs (deu, eng+fra; default: the "
                   "workers' INGEST_OCR_LANGS)")
        ->type_name("LANGS");
}

// The --ocr-langs value as the event parser judges it; false after printing why.
bool valid_ocr_langs(const std::string& langs) {
    if (langs.empty()) return true;
    const auto parsed = jobs::parse_event("0-0", {{"file_id", "x"}, {"storage_key", "x"}, {"ocr_langs", langs}});
    if (parsed.verdict == jobs::ParsedEntry::Verdict::ok) return true;
    std::cerr << "ingestd submit: invalid --ocr-langs: " << parsed.reason << "\n";
    return false;
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

// A fresh opaque id: "f" and 31 random hex digits, which no two submissions share.
std::string new_file_id() {
    return "f" + random_hex(31);
}

// The uploads spread over 256 folders by the first two hex digits of their id.
std::string upload_key(const std::string& file_id) {
    return "uploads/" + file_id.substr(1, 2) + "/" + file_id;
}

// Prints each file's metadata once it is final or the deadline passed; 1 when one of them
// is not final or failed.
int wait_and_print(jobs::Redis& redis, const jobs::QueueNames& names, const std::vector<std::string>& ids,
                   int timeout_s) {
    int rc = k_exit_ok;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    for (const auto& id : ids) {
        const jobs::Fields fields = jobs::wait_until_final(redis, names, id, deadline).value_or(jobs::Fields{});
        print_json(metadata_object(id, fields));
        if (!jobs::is_final(fields) || jobs::has_failure(fields)) rc = k_exit_failed;
    }
    return rc;
}

// Copies `path` into storage and appends its event; prints why and returns the exit code
// when it cannot, else nullopt with `appended` set.
std::optional<int> submit_one(Store& store, jobs::Redis& redis, const jobs::QueueNames& names, const std::string& path,
                              const SubmitFlags& flags, jobs::NewFile& file, jobs::Appended& appended) {
    core::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        std::cerr << "ingestd submit: cannot read " << path << "\n";
        return k_exit_usage;
    }
    file.file_id = new_file_id();
    file.storage_key = upload_key(file.file_id);
    file.name = std::filesystem::path(path).filename().string();
    file.size = static_cast<std::uint64_t>(st.st_size);
    file.steps = flags.steps;
    file.ocr_langs = flags.ocr_langs;
    store.write_from(file.storage_key, fd.get());
    file.submitted_at = jobs::utc_now_rfc3339();
    appended = jobs::append_new_file(redis, names, file);
    if (!appended.ok()) {
        std::cerr << "ingestd submit: Redis refused the event: " << appended.refusal << "\n";
        return k_exit_failed;
    }
    return std::nullopt;
}

int submit(const Config& config, const SubmitFlags& flags) {
    const auto steps = parse_steps("submit", flags.steps);
    if (!steps || !valid_ocr_langs(flags.ocr_langs)) return k_exit_usage;
    SubmitFlags normalised = flags;
    normalised.steps = steps->steps;
    const std::unique_ptr<Store> store = open_store_or_say("submit", config.storage_root);
    if (!store) return k_exit_usage;
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    std::vector<std::string> ids;
    std::vector<nlohmann::ordered_json> submitted;
    for (const auto& path : flags.files) {
        jobs::NewFile file;
        jobs::Appended appended;
        if (const auto rc = submit_one(*store, redis, names, path, normalised, file, appended)) {
            // What was submitted before the failure is in the queue: its ids are not lost.
            if (flags.wait.wait) {
                for (const auto& line : submitted) print_json(line);
            }
            return *rc;
        }
        ids.push_back(file.file_id);
        nlohmann::ordered_json line = {
            {"file_id", file.file_id}, {"storage_key", file.storage_key}, {"event_id", appended.entry_id}};
        if (!flags.wait.wait) print_json(line);
        submitted.push_back(std::move(line));
    }
    return flags.wait.wait ? wait_and_print(redis, names, ids, flags.wait.timeout_s) : k_exit_ok;
}

} // namespace

Command submit_command() {
    return with_scope(make_command<SubmitFlags>("submit",
                                                "store files, append their events, print file_id and storage_key",
                                                false, add_submit_flags, submit),
                      k_scope_redis | k_scope_storage);
}

} // namespace worker::cli

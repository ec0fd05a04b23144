#include "jobs/admin.hpp"
#include "jobs/event.hpp"
#include "jobs/queue.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/output.hpp"
#include "worker/config/log.hpp"
#include "worker/helper/pool.hpp"
#include "worker/pipeline/pipeline.hpp"
#include "worker/pipeline/result.hpp"
#include "worker/pipeline/step.hpp"
#include "worker/storage/store.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace worker::cli {
namespace {

using Clock = std::chrono::steady_clock;
using Fields = std::vector<std::pair<std::string, std::string>>;

struct ProcessFlags {
    std::vector<std::string> files;
    std::string id;
    std::string out_dir = "./ingest-out";
    std::string steps = "text,thumbnails";
};

void add_process_flags(CLI::App& app, ProcessFlags& flags) {
    app.add_option("FILE", flags.files, "files to process")->type_name("PATH")->required();
    app.add_option("--id", flags.id, "file_id for a single FILE (default: its SHA-256)")->type_name("ID");
    app.add_option("--out", flags.out_dir, "folder for thumbnails and spilled text (default ./ingest-out)")
        ->type_name("DIR");
    app.add_option("--steps", flags.steps, "text,thumbnails (default both)")->type_name("STEPS");
}

// What every file of one run shares.
struct Run {
    const Config& config;
    const std::string& id;
    const jobs::Event& steps;
    const Store& out;
    OnDemandHelper& helper;
    PipelineOptions& options;
};

// The metadata of one processed file, as the worker would write it.
struct Processed {
    std::string file_id;
    Fields fields;
};

struct LocalFile {
    core::Fd fd;
    std::uint64_t size = 0;
};

// A local path is not a storage key (it may be absolute or lead anywhere), so it is opened
// here, with the checks and error codes of a store's input.
LocalFile open_local(const std::string& path, std::uint64_t max_bytes) {
    // O_NONBLOCK so that opening a FIFO never waits for a writer.
    core::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!fd) {
        throw core::FileError(errno == ENOENT ? core::ErrorCode::storage_missing : core::ErrorCode::storage_error,
                              "The file cannot be opened: " + std::string(std::strerror(errno)) + ".");
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        throw core::FileError(core::ErrorCode::not_regular_file, "The path is not a regular file.");
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes) {
        throw core::FileError(core::ErrorCode::too_large, "The file is " + std::to_string(size) +
                                                              " bytes, over the limit of " + std::to_string(max_bytes) +
                                                              " bytes.");
    }
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
    return {std::move(fd), size};
}

// The library's words behind a failed step's sentence go to the log (stderr), as the worker's
// "step failed" line carries them.
void log_failure_details(const std::string& path, const PipelineResult& result) {
    for (Step step : k_steps) {
        const auto& failure = step_failure(result, step);
        if (!failure || failure->detail.empty()) continue;
        log::warn("step failed", {{"path", path},
                                  {"step", std::string(field_prefix(step))},
                                  {"error_code", std::string(core::to_string(failure->code))},
                                  {"detail", failure->detail}});
    }
}

Processed process_file(Run& run, const std::string& path) {
    const auto started = Clock::now();
    const std::string started_at = jobs::utc_now_rfc3339();
    JobSpec spec;
    spec.step_text = run.steps.step_text;
    spec.step_thumbnails = run.steps.step_thumbnails;
    PipelineResult result;
    std::string file_id = run.id;
    try {
        const LocalFile in = open_local(path, run.config.max_file_bytes);
        const std::string hash = hash_and_check(in.fd.get(), in.size, spec);
        if (file_id.empty()) file_id = hash;
        spec.file_id = file_id;
        run.options.deadline = started + std::chrono::seconds(run.config.job_timeout_s);
        result = run.helper.analyse(in.fd.get(), in.size, hash, spec, run.options);
        log_failure_details(path, result);
        write_outputs(run.out, result.outputs);
    } catch (const core::FileError& e) {
        result = file_failure(e.code(), e.what());
    }
    Fields fields = std::move(result.fields);
    fields.insert(fields.begin(), {"status", !result.file_error_code ? "done" : "failed"});
    fields.emplace_back("started_at", started_at);
    fields.emplace_back("finished_at", jobs::utc_now_rfc3339());
    fields.emplace_back(
        "duration_ms",
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count()));
    fields.emplace_back("steps", run.steps.steps);
    fields.emplace_back("pipeline_version", pipeline_version(run.config.ocr_langs));
    return {file_id, std::move(fields)};
}

bool any_file_has_bytes(const std::vector<std::string>& files) {
    std::error_code ec;
    for (const auto& path : files) {
        if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) > 0 && !ec) return true;
    }
    return false;
}

bool id_flag_usable(const ProcessFlags& flags) {
    if (flags.id.empty()) return true;
    if (flags.files.size() != 1) {
        std::cerr << "ingestd process: --id needs exactly one FILE\n";
        return false;
    }
    if (!jobs::valid_file_id(flags.id)) {
        std::cerr << "ingestd process: invalid --id: expected [A-Za-z0-9][A-Za-z0-9._:-]{0,127}, got \"" << flags.id
                  << "\"\n";
        return false;
    }
    return true;
}

int process(const Config& config, const ProcessFlags& flags) {
    // Without OCR no language data is read, so none needs to be installed.
    if (config.ocr_mode != "off" && !ocr_languages_installed(config)) return k_exit_usage;
    if (!id_flag_usable(flags)) return k_exit_usage;
    const auto steps = parse_steps("process", flags.steps);
    if (!steps) return k_exit_usage;
    const std::unique_ptr<Store> out = open_store_or_say("process", flags.out_dir);
    if (!out) return k_exit_usage;
    PipelineOptions options = pipeline_options(config);
    options.pdf_threads = machine_cores(); // one file at a time: a PDF's text layer may use every core
    options.ocr_threads = machine_cores(); // and its OCR'd pages too
    // Parsers run in a sandboxed helper process, started only when a file needs one.
    HelperSettings helper_settings = HelperSettings::from(config);
    helper_settings.preload_langs.clear();
    helper_settings.warm_parsers = false; // one run of a few files: warm only what they need
    OnDemandHelper helper(helper_settings);
    // A file with bytes almost always needs the helper: started now, its start-up overlaps the
    // reading, hashing and sniffing of the first file (an empty file needs none).
    if (any_file_has_bytes(flags.files)) helper.start_early();
    // Meanwhile: pipeline_version (cached) hashes the OCR language data, ~10 ms off the path.
    (void)pipeline_version(config.ocr_langs);
    Run run{config, flags.id, *steps, *out, helper, options};
    bool failed = false;
    for (const auto& path : flags.files) {
        const Processed processed = process_file(run, path);
        auto object = metadata_object(processed.file_id, processed.fields);
        object["path"] = path;
        print_json(object);
        failed = jobs::has_failure(processed.fields) || failed;
    }
    return failed ? k_exit_failed : k_exit_ok;
}

} // namespace

Command process_command() {
    return with_scope(make_command<ProcessFlags>("process", "run the whole pipeline on local files, without Redis",
                                                 true, add_process_flags, process),
                      k_scope_parse);
}

} // namespace worker::cli

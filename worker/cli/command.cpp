#include "worker/cli/command.hpp"

#include "extractors/sniff/ocr_langs.hpp"

#include <chrono>
#include <exception>
#include <iostream>

namespace worker::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> all = {
        worker_command(),    process_command(),   submit_command(),     status_command(),
        retry_command(),     dead_list_command(), dead_retry_command(), dead_purge_command(),
        reconcile_command(), delete_command(),    gc_command(),
    };
    return all;
}

Command make_command(const char* name, const char* help, bool needs_helper, int (*run)(const Config&)) {
    return {name, help, needs_helper, [run](CLI::App&) -> Action { return run; }};
}

std::optional<jobs::Event> parse_steps(const std::string& command, const std::string& steps) {
    // The event parser is the one judge of a steps list: the flag accepts what an event would.
    auto parsed = jobs::parse_event("0-0", {{"file_id", "x"}, {"storage_key", "x"}, {"steps", steps}});
    if (parsed.verdict != jobs::ParsedEntry::Verdict::ok) {
        std::cerr << "ingestd " << command << ": invalid --steps: expected text, thumbnails or both, got \"" << steps
                  << "\"\n";
        return std::nullopt;
    }
    return parsed.event;
}

Command with_scope(Command command, unsigned scope) {
    command.config_scope = k_scope_log | scope;
    return command;
}

CLI::Validator seconds_check(bool or_zero) {
    return CLI::Validator(
        [or_zero](std::string& value) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(value, v)) return "expected a number of seconds, got " + value;
            if (or_zero ? v >= 0 : v > 0) return "";
            return std::string("must be ") + (or_zero ? "zero or more" : "more than zero") + " seconds, got " + value;
        },
        or_zero ? "SECONDS>=0" : "SECONDS>0");
}

void add_wait_flags(CLI::App& app, WaitFlags& flags, const std::string& wait_help) {
    app.add_flag("--wait", flags.wait, wait_help);
    app.add_option("--timeout", flags.timeout_s, "seconds to wait (default 300)")->check(seconds_check(false));
}

bool ocr_languages_installed(const Config& config) {
    try {
        extractors::check_ocr_languages(config.ocr_langs);
        return true;
    } catch (const std::exception& e) {
        std::cerr << "ingestd: invalid INGEST_OCR_LANGS: " << e.what() << "\n";
        return false;
    }
}

std::unique_ptr<Store> open_store_or_say(const std::string& command, const std::string& root) {
    try {
        return open_store(root, true);
    } catch (const core::FileError& e) {
        std::cerr << "ingestd " << command << ": cannot open the storage: " << e.what() << "\n";
        return nullptr;
    }
}

jobs::Redis connect_redis(const Config& config) {
    return jobs::Redis(redis_address(config), std::chrono::milliseconds(5000));
}

} // namespace worker::cli

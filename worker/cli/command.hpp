#pragma once

#include "jobs/event.hpp"
#include "jobs/redis.hpp"
#include "worker/config/config.hpp"
#include "worker/storage/store.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace worker::cli {

/// The exit codes of the spec: success, a file or step failed, usage or configuration
/// error, unknown file id.
inline constexpr int k_exit_ok = 0, k_exit_failed = 1, k_exit_usage = 2, k_exit_unknown = 3;

/// Runs a parsed command with the loaded configuration and returns its exit code.
using Action = std::function<int(const Config& config)>;

/// One row of the command table: a new command is one file whose function returns its row
/// (declared below), and that function's line in commands().
struct Command {
    const char* name; // "submit"; "dead list" is the subcommand `list` of `dead`
    const char* help;
    bool needs_helper; // refuses to start when ingestd-helper is not beside the binary
    /// Adds the command's own flags (not the configuration's) to `app` and returns the
    /// action that runs it with the values parsed into them.
    std::function<Action(CLI::App& app)> add_flags;
    unsigned config_scope = k_scope_log | k_scope_redis; // the settings offered as its flags
};

/// `command` with the configuration flags of `scope` (SettingScope bits) besides the
/// logging ones.
Command with_scope(Command command, unsigned scope);

/// A CLI11 check that a number is above 0 (`or_zero`: at least 0), saying so in words.
CLI::Validator seconds_check(bool or_zero);

/// The row of a command whose flags are parsed into a `Flags` value by `add` and which `run`
/// runs with it.
template <typename Flags>
Command make_command(const char* name, const char* help, bool needs_helper, void (*add)(CLI::App&, Flags&),
                     int (*run)(const Config&, const Flags&)) {
    return {name, help, needs_helper, [add, run](CLI::App& app) -> Action {
                auto flags = std::make_shared<Flags>();
                add(app, *flags);
                return [flags, run](const Config& config) { return run(config, *flags); };
            }};
}

/// The row of a command without flags of its own.
Command make_command(const char* name, const char* help, bool needs_helper, int (*run)(const Config&));

/// Every command, in the order `ingestd --help` lists them.
const std::vector<Command>& commands();

Command worker_command();
Command process_command();
Command submit_command();
Command status_command();
Command dead_list_command();
Command dead_retry_command();
Command dead_purge_command();
Command retry_command();
Command reconcile_command();
Command delete_command();
Command gc_command();

/// The event of `--steps` (step_text, step_thumbnails, steps), or nullopt after printing
/// "ingestd <command>: invalid --steps ..." to stderr.
std::optional<jobs::Event> parse_steps(const std::string& command, const std::string& steps);

/// `--wait` and `--timeout S` of the commands that can wait for files to be final.
struct WaitFlags {
    bool wait = false;
    int timeout_s = 300;
};

/// Adds `--wait` (described by `wait_help`) and `--timeout` (seconds, default 300) to `app`.
void add_wait_flags(CLI::App& app, WaitFlags& flags, const std::string& wait_help);

/// True when the languages of INGEST_OCR_LANGS are installed; otherwise prints why to stderr.
bool ocr_languages_installed(const Config& config);

/// A connection to INGEST_REDIS_URL (made on the first command).
jobs::Redis connect_redis(const Config& config);

/// open_store(root, true) for `command`; on failure (a missing bucket, refused credentials, a
/// folder that cannot be made) prints one line "ingestd COMMAND: cannot open the storage: …"
/// and returns null (the caller exits k_exit_usage).
std::unique_ptr<Store> open_store_or_say(const std::string& command, const std::string& root);

} // namespace worker::cli

#include "worker/cli/cli.hpp"

#include "jobs/redis.hpp"
#include "worker/cli/command.hpp"
#include "worker/config/config.hpp"
#include "worker/config/log.hpp"
#include "worker/config/version.hpp"
#include "worker/helper/pool.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>

#include <unistd.h>

namespace worker {
namespace {

using cli::k_exit_failed;
using cli::k_exit_usage;

// The commands that only group others (`dead list`, `dead retry`), with their help.
constexpr std::pair<const char*, const char*> k_groups[] = {
    {"dead", "manage the dead-letter stream"},
};

// A command as parsed: its CLI11 subcommand and the action bound to its flags.
struct Registered {
    CLI::App* app;
    cli::Action action;
    bool needs_helper;
};

// The configuration flags of the settings in `scope` (every setting is still read from its
// INGEST_* variable; a command's --help lists only what concerns it).
void add_config_flags(CLI::App& app, std::map<std::string, std::string>& flags, unsigned scope) {
    for (const auto& s : settings()) {
        if ((s.scope & scope) == 0) continue;
        std::string env = s.env;
        app.add_option_function<std::string>(
               std::string("--") + s.flag, [&flags, env](const std::string& v) { flags[env] = v; },
               std::string(s.help) + " [" + s.env + "]")
            ->type_name(s.type)
            ->group("Configuration (each also from its INGEST_* environment variable)");
    }
}

// The subcommand `group` of `app`, made (with its help from k_groups) on first use.
CLI::App* group_command(CLI::App& app, std::map<std::string, CLI::App*>& made, const std::string& group) {
    CLI::App*& sub = made[group];
    if (sub != nullptr) return sub;
    std::string help;
    for (const auto& [name, text] : k_groups) {
        if (group == name) help = text;
    }
    sub = app.add_subcommand(group, help);
    sub->require_subcommand(1, 1);
    return sub;
}

// One subcommand per row of the command table, each with its own flags and then the
// configuration's, which are collected into `flags` by INGEST_* name.
std::vector<Registered> add_commands(CLI::App& app, std::map<std::string, std::string>& flags) {
    std::map<std::string, CLI::App*> groups;
    std::vector<Registered> registered;
    for (const auto& command : cli::commands()) {
        const std::string name = command.name;
        const auto space = name.find(' ');
        CLI::App* parent = space == std::string::npos ? &app : group_command(app, groups, name.substr(0, space));
        CLI::App* sub =
            parent->add_subcommand(space == std::string::npos ? name : name.substr(space + 1), command.help);
        cli::Action action = command.add_flags(*sub);
        add_config_flags(*sub, flags, command.config_scope);
        registered.push_back({sub, std::move(action), command.needs_helper});
    }
    return registered;
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

// The exit code when parsing ends the run (help, version, a usage error), else nullopt.
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) { // --help, --help-all, --version
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "ingestd: " << one_line(with_env_names(e.what())) << " (see ingestd --help)\n";
        return k_exit_usage;
    }
    return std::nullopt;
}

// Internal: `ingestd helper ...` runs the parser helper (ingestd-helper beside this binary,
// which alone links the parser libraries) with the same arguments.
CLI::App* add_helper_command(CLI::App& app) {
    auto* helper = app.add_subcommand("helper", "internal: a sandboxed parser process")->group("");
    helper->allow_extras();
    helper->prefix_command();
    return helper;
}

int exec_helper(const CLI::App& helper) {
    const std::string binary = helper_binary();
    std::vector<std::string> args = {binary, "helper"};
    for (const auto& extra : helper.remaining()) args.push_back(extra);
    std::vector<char*> argv_out;
    for (auto& arg : args) argv_out.push_back(arg.data());
    argv_out.push_back(nullptr);
    ::execv(binary.c_str(), argv_out.data());
    std::cerr << "ingestd: cannot run " << binary << ": " << std::strerror(errno) << "\n";
    return 1;
}

// The parsers live in ingestd-helper beside this binary: without it every file would end
// `crashed`, so a command that parses files refuses to start instead.
bool helper_installed() {
    const std::string helper = helper_binary();
    if (::access(helper.c_str(), X_OK) == 0) return true;
    std::cerr << "ingestd: the parser helper " << helper << " is missing or not executable (" << std::strerror(errno)
              << "); install ingestd-helper beside ingestd\n";
    return false;
}

int run_command(const Registered& command, const std::map<std::string, std::string>& flags) {
    Config config;
    try {
        config = load_config(flags);
    } catch (const ConfigError& e) {
        std::cerr << "ingestd: " << e.what() << "\n";
        return k_exit_usage;
    }
    log::setup(config.log_format, config.log_level);
    if (command.needs_helper && !helper_installed()) return k_exit_usage;
    try {
        return command.action(config);
    } catch (const jobs::RedisTlsError& e) {
        // A CA that does not sign the server, a refused client certificate: configuration.
        std::cerr << "ingestd: " << e.what() << " (INGEST_REDIS_URL=" << jobs::redacted_redis_url(config.redis_url)
                  << ", INGEST_REDIS_CA)\n";
        return k_exit_usage;
    } catch (const jobs::RedisIoError& e) {
        std::cerr << "ingestd: " << e.what() << " (INGEST_REDIS_URL=" << jobs::redacted_redis_url(config.redis_url)
                  << ")\n";
        return k_exit_failed;
    }
}

} // namespace

// The top-level words that name a command ("dead" for "dead list").
std::vector<std::string> command_words() {
    std::vector<std::string> words;
    for (const auto& command : cli::commands()) {
        std::string word = command.name;
        word = word.substr(0, word.find(' '));
        if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
    }
    return words;
}

// CLI11 says only "A subcommand is required" for a word it does not know: name the word and
// the commands instead. True (after saying so) when argv[1] is such a word.
bool unknown_command(int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return false;
    const std::string word = argv[1];
    const std::vector<std::string> words = command_words();
    if (word == "helper" || std::find(words.begin(), words.end(), word) != words.end()) return false;
    std::string list;
    for (const auto& w : words) list += (list.empty() ? "" : ", ") + w;
    std::cerr << "ingestd: unknown command \"" << word << "\"; the commands are " << list << " (see ingestd --help)\n";
    return true;
}

int run(int argc, char** argv) {
    if (unknown_command(argc, argv)) return k_exit_usage;
    CLI::App app{"ingestd: turns uploaded files into searchable, previewable records", "ingestd"};
    app.require_subcommand(1, 1);
    app.set_version_flag("--version", std::string("ingestd ") + k_version);
    std::map<std::string, std::string> flags;
    const std::vector<Registered> registered = add_commands(app, flags);
    const CLI::App* helper = add_helper_command(app);
    if (const auto rc = parse(app, argc, argv)) return *rc;
    if (*helper) return exec_helper(*helper);
    for (const auto& command : registered) {
        if (*command.app) return run_command(command, flags);
    }
    return k_exit_usage;
}

} // namespace worker

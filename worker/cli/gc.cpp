#include "jobs/queue_names.hpp"
#include "worker/cli/command.hpp"
#include "worker/cli/gc_sweep.hpp"
#include "worker/config/log.hpp"

#include <iostream>

// `ingestd gc --grace S [--dry-run]`: what deletion and crashes leave behind (GcSweep).
namespace worker::cli {
namespace {

struct GcFlags {
    double grace_s = 0;
    bool dry_run = false;
};

void add_gc_flags(CLI::App& app, GcFlags& flags) {
    app.add_option("--grace", flags.grace_s, "seconds a deleted file's original bytes are kept")
        ->required()
        ->check(seconds_check(true));
    app.add_flag("--dry-run", flags.dry_run, "print what would be removed, remove nothing");
}

int gc(const Config& config, const GcFlags& flags) {
    std::unique_ptr<Store> store;
    try {
        store = open_store(config.storage_root, false);
    } catch (const core::FileError& e) {
        std::cerr << "ingestd gc: " << e.what() << " (INGEST_STORAGE_ROOT)\n";
        return k_exit_usage;
    }
    const jobs::QueueNames names = queue_names(config);
    jobs::Redis redis = connect_redis(config);
    GcSweep sweep(redis, names, *store, GcOptions{flags.grace_s, flags.dry_run});
    try {
        sweep.originals();
        sweep.outputs();
    } catch (const jobs::RedisReplyError& e) {
        std::cerr << "ingestd gc: Redis refused a command: " << e.what() << "\n";
        return k_exit_failed;
    } catch (const core::FileError& e) {
        std::cerr << "ingestd gc: storage failed: " << e.what() << "\n";
        return k_exit_failed;
    }
    log::info(flags.dry_run ? "gc dry run finished" : "gc finished",
              {{"originals", std::to_string(sweep.removed("original"))},
               {"outputs", std::to_string(sweep.removed("output"))},
               {"temporaries", std::to_string(sweep.removed("temporary"))}});
    return k_exit_ok;
}

} // namespace

Command gc_command() {
    return with_scope(make_command<GcFlags>("gc",
                                            "remove originals of deleted files past the grace, and orphaned outputs",
                                            false, add_gc_flags, gc),
                      k_scope_redis | k_scope_storage);
}

} // namespace worker::cli

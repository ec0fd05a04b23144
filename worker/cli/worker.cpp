#include "worker/cli/command.hpp"
#include "worker/daemon/daemon.hpp"

namespace worker::cli {
namespace {

int run_worker(const Config& config) {
    // A language without its data would fail every OCR later: refuse at start-up.
    if (!ocr_languages_installed(config)) return k_exit_usage;
    return run_daemon(config);
}

} // namespace

Command worker_command() {
    return with_scope(make_command("worker", "the daemon: consume the stream until SIGTERM/SIGINT", true, run_worker),
                      k_scope_all);
}

} // namespace worker::cli

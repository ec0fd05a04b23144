#include "worker/cli.hpp"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include <unistd.h>

namespace {

// libgomp reads OMP_THREAD_LIMIT before main() runs; Tesseract with the default uses
// every core for each page and is ~10x slower when jobs run in parallel. Re-exec once
// with the limit in the environment (only for commands that may run OCR).
void ensure_omp_thread_limit(int argc, char** argv) {
    if (std::getenv("OMP_THREAD_LIMIT") != nullptr || argc < 2) return;
    const std::string cmd = argv[1];
    if (cmd != "worker" && cmd != "process") return;
    ::setenv("OMP_THREAD_LIMIT", "1", 1);
    ::execv("/proc/self/exe", argv);
    // exec failed: go on with the slow default rather than not at all.
}

} // namespace

int main(int argc, char** argv) {
    ensure_omp_thread_limit(argc, argv);
    try {
        return worker::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "ingestd: fatal: " << e.what() << "\n";
        return 1;
    }
}

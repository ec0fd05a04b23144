#include "worker/cli/cli.hpp"

#include <exception>
#include <iostream>

// Parsers (and so Tesseract and its OpenMP runtime) run in helper processes that are
// started with OMP_THREAD_LIMIT=1 in their environment (worker/helper/); this
// process never loads an OCR engine, so it needs no re-exec to set it.
int main(int argc, char** argv) {
    try {
        return worker::run(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "ingestd: fatal: " << e.what() << "\n";
        return 1;
    }
}

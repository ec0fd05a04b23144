#include "worker/helper/process/helper.hpp"

#include <exception>
#include <iostream>

// ingestd-helper: the sandboxed parser process (worker/helper/process/helper.cpp). Started by the worker
// with OMP_THREAD_LIMIT=1 in its environment (Tesseract's OpenMP reads it before main).
int main(int argc, char** argv) {
    try {
        return worker::helper_main(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "ingestd-helper: fatal: " << e.what() << "\n";
        return 1;
    }
}

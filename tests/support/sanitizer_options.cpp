// Compiled into every test binary of a -DINGESTD_SANITIZE=ON build (an INTERFACE source of
// ingestd_test_support): the LeakSanitizer suppressions in tests/lsan.supp, for the test
// process itself and, through LSAN_OPTIONS, for the ingestd workers and helpers it starts.
#include <cstdlib>

#ifndef INGESTD_SOURCE_DIR
#error "INGESTD_SOURCE_DIR must be defined"
#endif

#define INGESTD_LSAN_OPTIONS "suppressions=" INGESTD_SOURCE_DIR "/tests/lsan.supp:print_suppressions=0"

extern "C" const char* __lsan_default_options() {
    return INGESTD_LSAN_OPTIONS;
}

namespace {
const bool g_children_too = [] {
    ::setenv("LSAN_OPTIONS", INGESTD_LSAN_OPTIONS, 0);
    return true;
}();
} // namespace

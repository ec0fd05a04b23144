#include "thumbnails/render_guard.hpp"

#include "extractors/step.hpp"
#include "extractors/vips_error.hpp"

#include <chrono>
#include <new>
#include <utility>
#include <vips/vips8>

namespace thumbnails {

Result failure(core::ErrorCode code, std::string message) {
    return failure(core::Failure{code, std::move(message), {}});
}

Result failure(core::Failure failed) {
    Result result;
    result.error = std::move(failed);
    return result;
}

bool expired(const Options& options) {
    return std::chrono::steady_clock::now() >= options.deadline;
}

Result timed_out() {
    return failure(core::ErrorCode::timeout, "The thumbnail ran out of time.");
}

Result guarded(RenderFunction render, std::span<const unsigned char> bytes, const Options& options, const char* what) {
    if (expired(options)) {
        return timed_out();
    }
    try {
        Result result = render(bytes, options);
        // Loaders also leave warnings there on success (libjpeg's "corrupt data").
        vips_error_clear();
        return result;
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& error) { // vips::VError, or what a loader threw
        return decode_failure(what, extractors::vips_error_line(error), options);
    }
}

Result decode_failure(const char* what, const std::string& detail, const Options& options) {
    if (expired(options)) {
        return timed_out();
    }
    if (extractors::is_out_of_memory_message(detail)) {
        return failure(extractors::memory_limit_error(what, detail));
    }
    return failure(core::Failure{core::ErrorCode::corrupt_file,
                                 std::string("The ") + what + " is damaged and cannot be decoded.", detail});
}

} // namespace thumbnails

#include "thumbnails/render_guard.hpp"

#include "extractors/step.hpp"

#include <chrono>
#include <new>
#include <utility>
#include <vips/vips8>

namespace thumbnails {

namespace {

// Bound on the libvips text kept in an error sentence.
constexpr std::size_t k_max_message = 300;

// The libvips message as one line, then the global error buffer cleared so the
// next file on this process does not inherit it.
std::string vips_message(const vips::VError& error) {
    std::string text = error.what();
    vips_error_clear();
    std::string line;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        const std::string part = text.substr(start, end - start);
        // Loaders often repeat a warning once per strip: keep each sentence once.
        if (!part.empty() && line.find(part) == std::string::npos) {
            if (!line.empty()) {
                line += "; ";
            }
            line += part;
        }
        start = end + 1;
    }
    if (line.empty()) {
        line = "unknown libvips error";
    }
    if (line.size() > k_max_message) {
        line.resize(k_max_message);
    }
    while (!line.empty() && (line.back() == '.' || line.back() == ' ')) {
        line.pop_back();
    }
    return line;
}

} // namespace

Result failure(core::ErrorCode code, std::string message) {
    Result result;
    result.error = Result::Error{code, std::move(message)};
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
    } catch (const vips::VError& error) {
        std::string message = vips_message(error);
        if (expired(options)) {
            return timed_out();
        }
        if (extractors::is_out_of_memory_message(message)) {
            const auto e = extractors::memory_limit_error(what, message);
            return failure(e.code, e.message);
        }
        return failure(core::ErrorCode::corrupt_file,
                       std::string("The ") + what + " could not be read: " + message + ".");
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& error) {
        vips_error_clear();
        return failure(core::ErrorCode::corrupt_file,
                       std::string("The ") + what + " could not be read: " + error.what() + ".");
    }
}

} // namespace thumbnails

#pragma once

#include "core/file_error.hpp"

#include <functional>
#include <optional>

namespace testsupport {

/// The core::FileError that `f` throws, or nothing when it returns.
inline std::optional<core::FileError> file_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const core::FileError& e) {
        return e;
    }
    return std::nullopt;
}

} // namespace testsupport

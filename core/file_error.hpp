#pragma once

#include "core/error_code.hpp"

#include <stdexcept>
#include <string>

namespace core {

/// A file-level failure with its spec code (`storage_missing`, `not_regular_file`,
/// `too_large`, `storage_error`, ...) and one readable sentence. `transient` says a retry
/// may help (I/O errors, not what the file is).
class FileError : public std::runtime_error {
public:
    FileError(ErrorCode code, const std::string& message, bool transient = false)
        : std::runtime_error(message), m_code(code), m_transient(transient) {}
    ErrorCode code() const { return m_code; }
    bool transient() const { return m_transient; }

private:
    ErrorCode m_code;
    bool m_transient;
};

} // namespace core

#pragma once

#include "core/error_code.hpp"

#include <stdexcept>
#include <string>

namespace extractors {

/// Thrown inside a document extractor (zip, XML, e-mail...) when the file cannot be read:
/// the spec code and one readable sentence. The extractor's entry point turns it into
/// TextResult::error; it never leaves the extractors.
class DocumentError : public std::runtime_error {
public:
    DocumentError(core::ErrorCode code, const std::string& sentence) : std::runtime_error(sentence), m_code(code) {}
    core::ErrorCode code() const { return m_code; }
    core::Failure failure() const { return core::Failure{m_code, what()}; }

private:
    core::ErrorCode m_code;
};

} // namespace extractors

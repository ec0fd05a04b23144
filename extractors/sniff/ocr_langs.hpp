#pragma once

#include <filesystem>
#include <string>

namespace extractors {

/// The folder Tesseract loads language data from: $TESSDATA_PREFIX, else the Debian default.
std::filesystem::path tessdata_dir();

/// `<tessdata_dir>/<lang>.traineddata`.
std::filesystem::path traineddata_path(const std::string& lang);

/// Throws std::runtime_error naming the first language of `langs` ("eng+deu") whose
/// traineddata is missing, or a malformed language list. Thread-safe; needs no Tesseract.
void check_ocr_languages(const std::string& langs);

/// The first language of `langs` ("eng+deu") whose traineddata is missing; empty when all
/// are installed. Throws std::runtime_error for a malformed list. Thread-safe.
std::string missing_ocr_language(const std::string& langs);

/// "tesseract 5.3.0 eng:1a2b3c4d5e6f" (a SHA-256 prefix of each language's traineddata), for
/// `pipeline_version`. Throws like check_ocr_languages. Thread-safe; each file is hashed
/// once per process.
std::string ocr_version(const std::string& langs);

} // namespace extractors

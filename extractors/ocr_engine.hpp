#pragma once

#include "extractors/sniff/ocr_langs.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>

namespace extractors {

/// A borrowed 8-bit raster, top row first, rows `bytes_per_line` bytes apart: grey (one
/// byte a pixel) or RGB (three), as the tesseract CLI hands a file's pixels to Tesseract,
/// which thresholds colour per channel.
struct GreyImage {
    const unsigned char* data = nullptr;
    int width = 0;
    int height = 0;
    int bytes_per_line = 0;
    int dpi = 0;      // 0 when unknown: Tesseract then estimates it from the text size
    int channels = 1; // 1 grey, 3 RGB
};

/// What OCR made of one page.
struct OcrPage {
    std::string text;             // UTF-8 as Tesseract gave it (not yet cleaned)
    long long confidence_sum = 0; // sum of the word confidences (0-100 each)
    int words = 0;                // number of words behind confidence_sum
    int rotation = 0;             // degrees clockwise the kept pass rotated the page (OSD)
    double deskew = 0;            // degrees the page was turned to level its text lines (0: level)
    bool osd_ran = false;         // orientation detection was needed
    bool timed_out = false;       // the deadline cut recognition short; `text` is partial

    double mean_confidence() const { return words > 0 ? double(confidence_sum) / words : 0.0; }
};

/// Largest time one page may take even when the job has more time left.
inline constexpr std::chrono::seconds k_ocr_page_time_cap{120};

/// Language sets whose engines one thread keeps (least recently used goes first).
inline constexpr std::size_t k_ocr_engines_per_thread = 3;

/// OCR of one page with this thread's engine for `langs` ("eng", "eng+deu"), created on
/// first use and reused (the last k_ocr_engines_per_thread sets) (OEM default, automatic page segmentation).
/// Recognition stops at min(`deadline`, now + k_ocr_page_time_cap). A page whose first pass has a low mean word
/// confidence is checked with orientation detection (`osd`) and, when that is confident,
/// rotated and read again; the better pass is kept. A page whose text lines are skewed (a
/// sheet scanned at an angle, up to 15 degrees) is levelled first, which Tesseract's layout
/// analysis needs beyond a degree or two. A page without any text has no confidence (0
/// words). Throws std::runtime_error when the
/// engine cannot be initialised (language data missing). Thread-safe: one engine per
/// thread. The process must run with OMP_THREAD_LIMIT=1 (read by libgomp before main).
OcrPage ocr_page(const GreyImage& image, const std::string& langs, std::chrono::steady_clock::time_point deadline);

/// What a quick OCR pass over a reduced copy of a photo found: its words, and how many of them
/// are confident (>= k_confident_word) and have at least two letters or digits.
struct TextSigns {
    int words = 0;
    int confident = 0;
    bool timed_out = false;
};

/// Word confidence from which a word found by look_for_text counts as real text.
inline constexpr int k_confident_word = 70;

/// One recognition pass over `image` with this thread's engine for `langs` (no levelling, no
/// orientation detection), stopped at `end`: the signs of text it shows. Throws as ocr_page.
TextSigns look_for_text(const GreyImage& image, const std::string& langs, std::chrono::steady_clock::time_point end);

} // namespace extractors

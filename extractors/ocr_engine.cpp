#include "extractors/ocr_engine.hpp"

#include "extractors/deskew.hpp"
#include "extractors/engine_cache.hpp"
#include "extractors/sniff/hash.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <tesseract/baseapi.h>
#include <tesseract/ocrclass.h>
#include <tesseract/resultiterator.h>
#include <unistd.h>

namespace extractors {

namespace {

// Word confidences of LSTM recognition on legible upright text sit around 80-95, also on
// mediocre scans; a page read upside down or sideways gives garbage words around 20-50.
// Below 60 the page is worth the ~0.7 s of orientation detection; above it, it is not.
constexpr double k_low_confidence = 60.0;

// DetectOrientationScript's confidence is a margin between the best and the next
// orientation ("15 is reasonably confident" in Tesseract's docs; Tesseract's own
// auto-rotation uses min_orientation_margin = 7). The rotated pass is kept only when its
// words are more confident than the first pass, so a moderate margin is enough.
constexpr float k_osd_min_confidence = 5.0F;

// Orientation detection takes ~0.7 s a page and cannot be interrupted: skip it when less
// time than this is left before the page deadline.
constexpr std::chrono::seconds k_osd_min_time_left{2};

struct Engines {
    EngineCache<tesseract::TessBaseAPI> ocr{k_ocr_engines_per_thread}; // by language set
    std::unique_ptr<tesseract::TessBaseAPI> osd;
    bool osd_unavailable = false;
};

// Engines per thread: TessBaseAPI is not thread-safe, and creating one costs ~0.1 s and
// 50-65 MB a language, so each worker thread keeps its own, the last few language sets
// (events may name their own, ocr_langs), for its whole life.
thread_local Engines t_engines;

std::unique_ptr<tesseract::TessBaseAPI> new_engine(const std::string& langs, tesseract::OcrEngineMode mode) {
    auto api = std::make_unique<tesseract::TessBaseAPI>();
    // tprintf output ("Estimating resolution as ...", "Too few characters") goes nowhere.
    api->SetVariable("debug_file", "/dev/null");
    const std::string dir = tessdata_dir().string();
    if (api->Init(dir.c_str(), langs.c_str(), mode) != 0) {
        return nullptr;
    }
    api->SetVariable("debug_file", "/dev/null");
    return api;
}

tesseract::TessBaseAPI& ocr_engine(const std::string& langs) {
    tesseract::TessBaseAPI* api = t_engines.ocr.get(langs, [&] {
        check_ocr_languages(langs);
        auto made = new_engine(langs, tesseract::OEM_DEFAULT);
        if (made) made->SetPageSegMode(tesseract::PSM_AUTO);
        return made;
    });
    if (api == nullptr) {
        throw std::runtime_error("Tesseract could not load the OCR languages '" + langs + "' from " +
                                 tessdata_dir().string());
    }
    return *api;
}

// The orientation engine, created on the first page that needs it; nullptr when the osd
// data is not installed (orientation is then left as it is).
tesseract::TessBaseAPI* osd_engine() {
    Engines& e = t_engines;
    if (e.osd || e.osd_unavailable) {
        return e.osd.get();
    }
    std::error_code ec;
    if (std::filesystem::is_regular_file(traineddata_path("osd"), ec)) {
        e.osd = new_engine("osd", tesseract::OEM_TESSERACT_ONLY);
    }
    if (!e.osd) {
        e.osd_unavailable = true;
        return nullptr;
    }
    e.osd->SetPageSegMode(tesseract::PSM_OSD_ONLY);
    return e.osd.get();
}

// True when every pixel is 0 or 255: a bilevel scan (fax, 1-bit TIFF) decoded to grey.
bool bilevel(const GreyImage& image) {
    if (image.channels != 1) return false;
    for (int y = 0; y < image.height; ++y) {
        const unsigned char* row = image.data + std::size_t(y) * std::size_t(image.bytes_per_line);
        unsigned char odd = 0;
        for (int x = 0; x < image.width; ++x) {
            odd |= static_cast<unsigned char>(row[x] + 1) > 1 ? 1 : 0; // neither 0 nor 255
        }
        if (odd) {
            return false;
        }
    }
    return true;
}

// Packs a bilevel image 8 pixels a byte, MSB first, 1 = white: Tesseract's binary input.
std::vector<unsigned char> pack_bits(const GreyImage& image, int& bytes_per_line) {
    bytes_per_line = (image.width + 7) / 8;
    std::vector<unsigned char> bits(std::size_t(bytes_per_line) * std::size_t(image.height), 0);
    for (int y = 0; y < image.height; ++y) {
        const unsigned char* row = image.data + std::size_t(y) * std::size_t(image.bytes_per_line);
        unsigned char* out = bits.data() + std::size_t(y) * std::size_t(bytes_per_line);
        for (int x = 0; x < image.width; ++x) {
            out[x >> 3] |= static_cast<unsigned char>((row[x] >> 7) << (7 - (x & 7)));
        }
    }
    return bits;
}

void set_image(tesseract::TessBaseAPI& api, const GreyImage& image) {
    if (bilevel(image)) {
        // As Tesseract reads a 1-bit file itself: no thresholding pass over pixels that
        // are already black or white (a few per cent of the page's OCR time).
        int bpl = 0;
        const std::vector<unsigned char> bits = pack_bits(image, bpl);
        api.SetImage(bits.data(), image.width, image.height, 0, bpl); // copies the pixels
    } else {
        api.SetImage(image.data, image.width, image.height, image.channels, image.bytes_per_line);
    }
    if (image.dpi > 0) {
        api.SetSourceResolution(image.dpi);
    }
}

struct Pass {
    std::string text;
    long long confidence_sum = 0;
    int words = 0;
    bool timed_out = false;

    double mean() const { return words > 0 ? double(confidence_sum) / words : 0.0; }
};

Pass recognise(tesseract::TessBaseAPI& api, const GreyImage& image, std::chrono::steady_clock::time_point end) {
    set_image(api, image);
    tesseract::ETEXT_DESC monitor;
    monitor.end_time = end;
    api.Recognize(&monitor);
    Pass pass;
    pass.timed_out = monitor.deadline_exceeded();
    // Recognize marks recognition done before it starts, so these read what it produced and
    // never run recognition again without the deadline.
    if (std::unique_ptr<char[]> text(api.GetUTF8Text()); text) {
        pass.text = text.get();
    }
    // Mean word confidence over the page's words, in one pass over Tesseract's results
    // (a ResultIterator asking each word for its text cost ~1 % of a page's OCR time).
    if (std::unique_ptr<int[]> conf(api.AllWordConfidences()); conf) {
        for (const int* c = conf.get(); *c != -1; ++c) {
            pass.confidence_sum += std::clamp(*c, 0, 100);
            ++pass.words;
        }
    }
    api.Clear();
    return pass;
}

// Rotates `image` clockwise by `degrees` (90, 180 or 270) into `pixels`.
GreyImage rotate(const GreyImage& image, int degrees, std::vector<unsigned char>& pixels) {
    const int w = image.width;
    const int h = image.height;
    const auto n = std::size_t(image.channels);
    const bool swap = degrees == 90 || degrees == 270;
    GreyImage out;
    out.width = swap ? h : w;
    out.height = swap ? w : h;
    out.bytes_per_line = out.width * image.channels;
    out.dpi = image.dpi;
    out.channels = image.channels;
    pixels.resize(std::size_t(out.width) * std::size_t(out.height) * n);
    for (int y = 0; y < h; ++y) {
        const unsigned char* row = image.data + std::size_t(y) * std::size_t(image.bytes_per_line);
        for (int x = 0; x < w; ++x) {
            int nx = x;
            int ny = y;
            if (degrees == 90) {
                nx = h - 1 - y;
                ny = x;
            } else if (degrees == 180) {
                nx = w - 1 - x;
                ny = h - 1 - y;
            } else if (degrees == 270) {
                nx = y;
                ny = w - 1 - x;
            }
            std::copy_n(row + std::size_t(x) * n, n,
                        pixels.data() + (std::size_t(ny) * std::size_t(out.width) + std::size_t(nx)) * n);
        }
    }
    out.data = pixels.data();
    return out;
}

// Clockwise rotation that puts the page upright, or 0 when OSD is unsure or finds it upright.
int detect_correction(tesseract::TessBaseAPI& osd, const GreyImage& image) {
    set_image(osd, image);
    int orientation = 0;
    float orientation_confidence = 0.0F;
    const char* script = nullptr;
    float script_confidence = 0.0F;
    const bool ok = osd.DetectOrientationScript(&orientation, &orientation_confidence, &script, &script_confidence);
    osd.Clear();
    if (!ok || orientation_confidence < k_osd_min_confidence) {
        return 0;
    }
    // `orientation` is how far the page is turned counter-clockwise from upright (Tesseract
    // reports "Rotate: 360 - orientation" as the clockwise fix).
    return (360 - orientation) % 360;
}

// Takes `pass` as the page's result, read with the page turned `rotation` degrees (OSD).
void keep(OcrPage& out, Pass&& pass, int rotation) {
    out.text = std::move(pass.text);
    out.confidence_sum = pass.confidence_sum;
    out.words = pass.words;
    out.timed_out = pass.timed_out;
    out.rotation = rotation;
}

// Orientation detection on a page whose first pass had low confidence: when OSD finds it on
// its side or upside down, it is turned (and levelled) and read again, and the more
// confident pass is kept in `out`.
void read_turned(tesseract::TessBaseAPI& api, const GreyImage& page, std::chrono::steady_clock::time_point end,
                 OcrPage& out) {
    if (std::chrono::steady_clock::now() + k_osd_min_time_left > end) {
        return;
    }
    tesseract::TessBaseAPI* osd = osd_engine();
    if (osd == nullptr) {
        return;
    }
    out.osd_ran = true;
    const int correction = detect_correction(*osd, page);
    if (correction == 0) {
        return;
    }
    std::vector<unsigned char> pixels;
    const GreyImage turned = rotate(page, correction, pixels);
    // A sheet on its side can also be skewed: its lines only show once it is upright.
    const std::optional<LevelledPage> level = out.deskew == 0.0 ? deskewed(turned) : std::nullopt;
    Pass second = recognise(api, level ? level->view : turned, end);
    if (second.words > 0 && second.mean() > out.mean_confidence()) {
        keep(out, std::move(second), correction);
        if (level) out.deskew = level->degrees;
    }
}

// True when `word` has at least two letters or digits (a speck read as "|" or "." is not text).
bool wordlike(const char* word) {
    int alnum = 0;
    for (const char* c = word; *c != 0; ++c) {
        const auto u = static_cast<unsigned char>(*c);
        alnum += std::isalnum(u) != 0 || u >= 0xC0 ? 1 : 0; // any non-ASCII letter's first byte counts
    }
    return alnum >= 2;
}

} // namespace

TextSigns look_for_text(const GreyImage& image, const std::string& langs, std::chrono::steady_clock::time_point end) {
    TextSigns signs;
    if (image.data == nullptr || image.width <= 0 || image.height <= 0) return signs;
    tesseract::TessBaseAPI& api = ocr_engine(langs);
    set_image(api, image);
    tesseract::ETEXT_DESC monitor;
    monitor.end_time = end;
    api.Recognize(&monitor);
    signs.timed_out = monitor.deadline_exceeded();
    if (std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator()); it) {
        do {
            const std::unique_ptr<char[]> word(it->GetUTF8Text(tesseract::RIL_WORD));
            if (!word) continue;
            ++signs.words;
            if (it->Confidence(tesseract::RIL_WORD) >= k_confident_word && wordlike(word.get())) ++signs.confident;
        } while (it->Next(tesseract::RIL_WORD));
    }
    api.Clear();
    return signs;
}

OcrPage ocr_page(const GreyImage& image, const std::string& langs, std::chrono::steady_clock::time_point deadline) {
    OcrPage out;
    if (image.data == nullptr || image.width <= 0 || image.height <= 0) {
        return out;
    }
    tesseract::TessBaseAPI& api = ocr_engine(langs);
    const auto now = std::chrono::steady_clock::now();
    const auto end = now >= deadline ? deadline : std::min(deadline, now + k_ocr_page_time_cap);

    const std::optional<LevelledPage> level = deskewed(image);
    const GreyImage& page = level ? level->view : image;
    out.deskew = level ? level->degrees : 0.0;
    Pass first = recognise(api, page, end);
    keep(out, std::move(first), 0);
    // Upright pages never pay for orientation detection, nor do pages without any words (a
    // photo): a page on its side or upside down still gives many (garbage) words.
    if (!out.timed_out && out.words > 0 && out.mean_confidence() < k_low_confidence) {
        read_turned(api, page, end, out);
    }
    // Tesseract can report a confident "word" whose text is empty (a rule or a speck it
    // kept as a word): a page without text has no confidence, so an empty result never
    // claims one.
    if (std::all_of(out.text.begin(), out.text.end(),
                    [](char c) { return std::isspace(static_cast<unsigned char>(c)); })) {
        out.confidence_sum = 0;
        out.words = 0;
    }
    return out;
}

} // namespace extractors

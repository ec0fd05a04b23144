// Per-event OCR languages end to end: real redis-server and `ingestd worker`, an image of
// German text rendered at run time with `vips text` (no corpus needed).
#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"
#include "tests/support/worker_fixture.hpp"

#include <filesystem>
#include <stdexcept>

#include <gtest/gtest.h>

namespace {

// A PNG of `text` in dark letters on white, rendered by `vips text` at 300 dpi.
void write_text_png(const std::filesystem::path& png, const std::string& text) {
    const std::string base = png.string();
    const std::string cmd = "vips text '" + base + ".t.v' '" + text + "' --dpi 300 --width 2000 && vips invert '" +
                            base + ".t.v' '" + base + ".i.v' && vips embed '" + base + ".i.v' '" + base +
                            "' 60 60 2200 400 --extend white 2>&1";
    int status = 0;
    const std::string out = testsupport::run_command(cmd, &status);
    if (status != 0) throw std::runtime_error("vips failed (libvips-tools installed?): " + out);
}

bool deu_installed() {
    const char* env = std::getenv("TESSDATA_PREFIX");
    const std::filesystem::path dir = env != nullptr && *env != '\0' ? env : "/usr/share/tesseract-ocr/5/tessdata";
    return std::filesystem::exists(dir / "deu.traineddata");
}

TEST(OcrLangsE2E, EventLanguagesAreUsedAndChecked) {
    if (!deu_installed()) GTEST_SKIP() << "tesseract-ocr-deu is not installed (scripts/install-deps.sh)";
    testsupport::WorkerFixture fx;
    testsupport::TempDir dir;
    write_text_png(dir.path() / "de.png", "Über die Brücke gehen fünf größere Bären.");
    fx.put_copy("de.png", dir.path() / "de.png");
    fx.start("w1");
    fx.submit("de1", "de.png", {{"ocr_langs", "deu"}, {"steps", "text"}});
    fx.submit("default1", "de.png", {{"steps", "text"}});
    fx.submit("missing1", "de.png", {{"ocr_langs", "xxx"}});
    fx.submit("missing2", "de.png", {{"ocr_langs", "eng+zzz"}});
    fx.submit("bad1", "de.png", {{"ocr_langs", "eng+"}});
    fx.submit("bad2", "de.png", {{"ocr_langs", "../x"}});

    ASSERT_EQ(fx.wait_final("de1"), "done");
    EXPECT_EQ(fx.field("de1", "ocr_langs"), "deu");
    const std::string text = fx.field("de1", "extracted_text");
    for (const char* word : {"Über", "Brücke", "fünf", "größere", "Bären"}) {
        EXPECT_NE(text.find(word), std::string::npos) << word << " not in: " << text;
    }
    ASSERT_EQ(fx.wait_final("default1"), "done");
    EXPECT_EQ(fx.field("default1", "ocr_langs"), "eng"); // INGEST_OCR_LANGS's default

    for (const auto& [id, lang] : {std::pair{"missing1", "\"xxx\""}, std::pair{"missing2", "\"zzz\""}}) {
        EXPECT_EQ(fx.wait_final(id), "failed") << id;
        EXPECT_EQ(fx.field(id, "error_code"), "invalid_event") << id;
        const std::string error = fx.field(id, "error");
        EXPECT_NE(error.find(lang), std::string::npos) << error;
        EXPECT_EQ(error.back(), '.') << error;
    }
    for (const char* id : {"bad1", "bad2"}) {
        EXPECT_EQ(fx.wait_final(id), "failed") << id;
        EXPECT_EQ(fx.field(id, "error_code"), "invalid_event") << id;
        EXPECT_NE(fx.field(id, "error").find("ocr_langs"), std::string::npos) << id;
    }
}

} // namespace

#include "tests/support/generated_file.hpp"

#include "tests/support/corpus.hpp"
#include "tests/support/pdf_builder.hpp"
#include "tests/support/redis_server.hpp"

#include <stdexcept>

namespace testsupport {

namespace {

std::string shell_quoted(const std::string& s) {
    if (s.find('\'') != std::string::npos) throw std::invalid_argument("no single quotes here: " + s);
    return "'" + s + "'";
}

void vips(const std::string& args) {
    int status = -1;
    const std::string out = run_command("vips " + args + " 2>&1", &status);
    if (status != 0) throw std::runtime_error("vips " + args + " failed (libvips-tools installed?): " + out);
}

} // namespace

void write_image(const std::filesystem::path& path, int width, int height) {
    const std::string noise = shell_quoted(path.string() + ".noise.v");
    const std::string rgb = shell_quoted(path.string() + ".rgb.v");
    vips("gaussnoise " + noise + " " + std::to_string(width) + " " + std::to_string(height) + " --mean 128 --sigma 40");
    vips("bandjoin " +
         shell_quoted(path.string() + ".noise.v " + path.string() + ".noise.v " + path.string() + ".noise.v") + " " +
         rgb);
    vips("cast " + rgb + " " + shell_quoted(path.string()) + " uchar");
    std::filesystem::remove(path.string() + ".noise.v");
    std::filesystem::remove(path.string() + ".rgb.v");
}

void write_text_scan(const std::filesystem::path& jpeg, int lines) {
    std::string text;
    for (int i = 1; i <= lines; ++i) {
        text += "Line " + std::to_string(i) + " of this page: the quick brown fox jumps over the lazy dog.\n";
    }
    const std::string white_on_black = shell_quoted(jpeg.string() + ".text.v");
    const std::string black_on_white = shell_quoted(jpeg.string() + ".ink.v");
    vips("text " + white_on_black + " " + shell_quoted(text) + " --dpi 300 --width 2300");
    vips("invert " + white_on_black + " " + black_on_white);
    vips("embed " + black_on_white + " " + shell_quoted(jpeg.string() + "[Q=70]") + " 120 120 " +
         std::to_string(k_scan_width) + " " + std::to_string(k_scan_height) + " --extend white");
    std::filesystem::remove(jpeg.string() + ".text.v");
    std::filesystem::remove(jpeg.string() + ".ink.v");
}

std::string scanned_text_pdf(const std::filesystem::path& dir, int pages) {
    const auto jpeg = dir / "scan-page.jpg";
    write_text_scan(jpeg, 45);
    return scanned_pdf(read_file(jpeg), k_scan_width, k_scan_height, pages);
}

} // namespace testsupport

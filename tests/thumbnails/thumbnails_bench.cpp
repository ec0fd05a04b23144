// Timing harness for the thumbnailer: `thumbnails_bench FILE [RUNS] [OUT_DIR]`.
// Renders FILE RUNS times in this process (after reading it once) and prints the
// median and every run in milliseconds plus the peak RSS; with OUT_DIR, writes the
// three WebP files of the last run there, as the worker would. With RUNS=1 it is a
// whole-process measurement when timed from outside (bench/thumbnails_bench.sh).
#include "thumbnails/thumbnailer.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE [RUNS] [OUT_DIR]\n", argv[0]);
        return 2;
    }
    const int runs = argc > 2 ? std::max(1, std::stoi(argv[2])) : 5;
    std::ifstream in(argv[1], std::ios::binary);
    const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.empty()) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    thumbnails::init();
    const bool pdf = bytes.size() > 4 && std::string(bytes.begin(), bytes.begin() + 4) == "%PDF";
    std::vector<double> times;
    thumbnails::Result result;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        result = pdf ? thumbnails::render_pdf(bytes, {}) : thumbnails::render_image(bytes, {});
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        if (result.error) {
            std::fprintf(stderr, "%s: %s\n", std::string(core::to_string(result.error->code)).c_str(),
                         result.error->message.c_str());
            return 1;
        }
    }
    if (argc > 3) {
        for (const auto& thumbnail : result.thumbnails) {
            std::ofstream out(std::string(argv[3]) + "/" + std::to_string(thumbnail.size) + ".webp",
                              std::ios::binary | std::ios::trunc);
            out.write(thumbnail.webp.data(), static_cast<std::streamsize>(thumbnail.webp.size()));
        }
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("median_ms=%.1f runs=", sorted[sorted.size() / 2]);
    for (std::size_t i = 0; i < times.size(); ++i) {
        std::printf("%s%.1f", i ? "," : "", times[i]);
    }
    std::printf(" peak_rss_kib=%ld sizes=", usage.ru_maxrss);
    for (const auto& thumbnail : result.thumbnails) {
        std::printf("%dx%d ", thumbnail.width, thumbnail.height);
    }
    std::printf("\n");
    thumbnails::thread_shutdown();
    return 0;
}

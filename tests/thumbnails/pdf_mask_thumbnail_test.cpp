// Issue 17: PowerPoint-exported slides draw shapes as a 2 x 2 image with a big 1-bit /SMask
// stencil. Poppler's Splash renderer decodes the whole mask, so its time grows with the mask's
// pixels; vipsthumbnail (Poppler's Cairo backend) is fast on masks over 32767 pixels wide only
// because Cairo cannot hold them and leaves the shape out. Ours draws what is within the pixel
// budget, correctly and no slower than vipsthumbnail, and refuses the rest at once.
#include "tests/support/generated_file.hpp"
#include "tests/support/pdf_builder.hpp"
#include "tests/thumbnails/thumbnail_checks.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

using namespace thumbtest;

namespace {

using Clock = std::chrono::steady_clock;

// The median wall time of three runs of `run`, after a warm-up.
double median_seconds(const std::function<void()>& run) {
    run();
    std::vector<double> times;
    for (int i = 0; i < 3; ++i) {
        const auto start = Clock::now();
        run();
        times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[1];
}

// vipsthumbnail's time for the 288 px thumbnail of `pdf`, as a whole process.
double vipsthumbnail_seconds(const std::string& pdf) {
    testsupport::TempDir dir;
    const auto path = dir.path() / "slide.pdf";
    testsupport::write_file(path, pdf);
    const std::string cmd =
        "vipsthumbnail " + path.string() + " -s 288 -o " + (dir.path() / "v.webp").string() + " >/dev/null 2>&1";
    return median_seconds([&] { EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd; });
}

} // namespace

TEST_F(ThumbnailerTest, PowerPointStencilMaskIsDrawnNoSlowerThanVipsthumbnail) {
    const std::string pdf = testsupport::stencil_slide_pdf(8000, 4500); // 600 dpi on a 13.3 in slide
    Result result;
    const double ours = median_seconds([&] { result = thumbnails::render_pdf(as_bytes(pdf), m_options); });
    ASSERT_FALSE(result.error) << result.error->message;
    expect_thumbnails(result, 960, 540, false);
    const VImage slide = load(result.thumbnails[0].webp); // 288 x 162
    ASSERT_EQ(slide.width(), 288);
    auto pixel = [&](int x, int y) { return slide.getpoint(x, y); };
    // Top band opaque blue, second band paper, and the disc inverts them.
    EXPECT_LT(pixel(10, 5)[0], 80);
    EXPECT_GT(pixel(10, 5)[2], 90);
    EXPECT_GT(pixel(10, 30)[0], 230);
    EXPECT_LT(pixel(10, 88)[0], 80) << "fifth band, outside the disc: blue";
    EXPECT_GT(pixel(144, 88)[0], 200) << "fifth band, inside the disc: inverted, paper";
    const double theirs = vipsthumbnail_seconds(pdf);
    std::printf("[ figures  ] 8000x4500 1-bit stencil slide: ours %.3f s, vipsthumbnail %.3f s\n", ours, theirs);
    EXPECT_LT(ours, 3 * theirs + 0.05);
}

TEST_F(ThumbnailerTest, StencilMaskOverThePixelBudgetIsRefusedFasterThanVipsthumbnail) {
    // 900 MP, wider than Cairo's 32767: Splash would decode it for seconds, vipsthumbnail
    // draws a blank slide quickly.
    const std::string pdf = testsupport::stencil_slide_pdf(40000, 22500);
    Result result;
    const double ours = median_seconds([&] { result = thumbnails::render_pdf(as_bytes(pdf), m_options); });
    ASSERT_TRUE(result.error);
    EXPECT_EQ(result.error->code, core::ErrorCode::too_many_pixels) << result.error->message;
    const double theirs = vipsthumbnail_seconds(pdf);
    std::printf("[ figures  ] 40000x22500 1-bit stencil slide: ours %.3f s (too_many_pixels), vipsthumbnail %.3f s\n",
                ours, theirs);
    EXPECT_LT(ours, 3 * theirs + 0.05);
}

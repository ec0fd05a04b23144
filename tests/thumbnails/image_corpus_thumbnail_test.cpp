// Thumbnails of real-world images from the corpus: animation, pages, colour profiles,
// metadata, EXIF orientation, damaged files.
#include "tests/thumbnails/thumbnail_checks.hpp"

#include <optional>

using namespace thumbtest;

namespace {

void expect_upright(const char* name, bool swapped, thumbnails::Options options) {
    INGEST_CORPUS_FILE(path, name);
    const std::string bytes = testsupport::read_file(path);
    VImage stored = load(bytes);
    const Result result = thumbnails::render_image(as_bytes(bytes), options);
    ASSERT_FALSE(result.error) << result.error->message;
    EXPECT_EQ(result.width, swapped ? stored.height() : stored.width());
    EXPECT_EQ(result.height, swapped ? stored.width() : stored.height());
    expect_thumbnails(result, *result.width, *result.height, true);
    // libvips's own autorotated thumbnail is the reference for the pixels and the shape.
    VImage reference = VImage::thumbnail(path.c_str(), 288);
    VImage ours = load(result.thumbnails[0].webp);
    ASSERT_EQ(ours.width(), reference.width());
    ASSERT_EQ(ours.height(), reference.height());
    EXPECT_LT(mean_abs_diff(ours, reference), 12);
    // And it is not the unrotated image.
    if (!swapped) {
        VImage unrotated = VImage::thumbnail(path.c_str(), 288, VImage::option()->set("no_rotate", true));
        EXPECT_GT(mean_abs_diff(ours, unrotated), 12);
    }
}

} // namespace

TEST_F(ThumbnailerTest, AlphaIsKept) {
    INGEST_CORPUS_FILE(path, "img/png/transparent.png");
    const Result result = thumbnails::render_image(as_bytes(testsupport::read_file(path)), m_options);
    expect_thumbnails(result, 200, 150, true);
    for (const auto& thumbnail : result.thumbnails) {
        EXPECT_EQ(load(thumbnail.webp).bands(), 4);
    }
}

TEST_F(ThumbnailerTest, AnimatedGifGivesItsFirstFrame) {
    INGEST_CORPUS_FILE(path, "img/gif/iss634.gif");
    const std::string bytes = testsupport::read_file(path);
    VImage all = VImage::new_from_buffer(bytes, "", VImage::option()->set("n", -1));
    ASSERT_GT(vips_image_get_n_pages(all.get_image()), 1) << "the corpus file should be animated";
    const int page_height = vips_image_get_page_height(all.get_image());
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, all.width(), page_height, true);
    EXPECT_EQ(result.height, page_height);
    // The 288 thumbnail looks like the first frame, not like a later one.
    VImage first = VImage::new_from_buffer(bytes, "");
    VImage ours = load(result.thumbnails[0].webp);
    ASSERT_EQ(ours.width(), first.width());
    EXPECT_LT(mean_abs_diff(ours, first), 12);
    VImage second = VImage::new_from_buffer(bytes, "", VImage::option()->set("page", 1));
    EXPECT_LT(mean_abs_diff(ours, first), mean_abs_diff(ours, second));
}

TEST_F(ThumbnailerTest, MultiPageTiffGivesItsFirstPage) {
    INGEST_CORPUS_FILE(path, "img/tiff/multipage.tiff");
    const std::string bytes = testsupport::read_file(path);
    VImage first = VImage::new_from_buffer(bytes, "");
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, first.width(), first.height(), true);
}

TEST_F(ThumbnailerTest, CmykJpegBecomesThreeBandSrgb) {
    INGEST_CORPUS_FILE(path, "img/jpeg/pil_sample_cmyk.jpg");
    const std::string bytes = testsupport::read_file(path);
    ASSERT_EQ(load(bytes).interpretation(), VIPS_INTERPRETATION_CMYK);
    const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
    expect_thumbnails(result, 100, 100, true);
    for (const auto& thumbnail : result.thumbnails) {
        VImage image = load(thumbnail.webp);
        EXPECT_EQ(image.bands(), 3);
        EXPECT_EQ(image.interpretation(), VIPS_INTERPRETATION_sRGB);
    }
    // Same colours as libvips's own CMYK -> sRGB conversion.
    VImage reference = load(bytes).colourspace(VIPS_INTERPRETATION_sRGB);
    EXPECT_LT(mean_abs_diff(load(result.thumbnails[0].webp), reference), 12);
}

TEST_F(ThumbnailerTest, MetadataBlocksAreStripped) {
    for (const char* name : {"img/jpeg/exif_gps.jpg", "img/jpeg/xmp_test.jpg", "img/jpeg/icc_profile_big.jpg",
                             "img/jpeg/sample-xyb.jpg", "img/orient/vips-rotation-6.jpg"}) {
        SCOPED_TRACE(name);
        INGEST_CORPUS_FILE(path, name);
        const std::string bytes = testsupport::read_file(path);
        VImage original = load(bytes);
        const bool had_metadata = vips_image_get_typeof(original.get_image(), VIPS_META_EXIF_NAME) != 0 ||
                                  vips_image_get_typeof(original.get_image(), VIPS_META_XMP_NAME) != 0 ||
                                  vips_image_get_typeof(original.get_image(), VIPS_META_ICC_NAME) != 0;
        EXPECT_TRUE(had_metadata) << "corpus file without metadata: the test proves nothing";
        int width = original.width();
        int height = original.height();
        if (vips_image_get_orientation_swap(original.get_image())) {
            std::swap(width, height);
        }
        expect_thumbnails(thumbnails::render_image(as_bytes(bytes), m_options), width, height, false);
    }
}

TEST_F(ThumbnailerTest, EmbeddedProfileIsAppliedBeforeStripping) {
    // An XYB JPEG is unrecognisable without its ICC profile.
    INGEST_CORPUS_FILE(path, "img/jpeg/sample-xyb.jpg");
    INGEST_CORPUS_FILE(plain, "img/jpeg/sample.jpg");
    const Result result = thumbnails::render_image(as_bytes(testsupport::read_file(path)), m_options);
    ASSERT_FALSE(result.error);
    VImage reference = VImage::thumbnail(plain.c_str(), 288);
    EXPECT_LT(mean_abs_diff(load(result.thumbnails[0].webp), reference), 12);
}

TEST_F(ThumbnailerTest, ExifOrientation6IsAppliedAndSwapsWidthAndHeight) {
    expect_upright("img/orient/vips-rotation-6.jpg", true, m_options);
}

TEST_F(ThumbnailerTest, ExifOrientation3IsApplied) {
    expect_upright("img/orient/vips-rotation-3.jpg", false, m_options);
}

TEST_F(ThumbnailerTest, EveryConformanceImageGetsThreeFittingThumbnails) {
    for (const char* name :
         {"img/jpeg/flower.jpg", "img/jpeg/xmp_test.jpg", "img/jpeg/ultra-hdr.jpg", "img/jpeg/pil_sample_cmyk.jpg",
          "img/png/transparent.png", "img/png/indexed.png", "img/png/sample.png", "img/gif/iss634.gif",
          "img/gif/hopper.gif", "img/webp/flower.webp", "img/webp/big-height.webp", "img/tiff/sample.tif",
          "img/tiff/pport_g4.tif", "img/webp/iss634.webp", "img/orient/hopper_orientation_3.webp",
          "img/orient/g4_orientation_6.tif"}) {
        SCOPED_TRACE(name);
        INGEST_CORPUS_FILE(path, name);
        const std::string bytes = testsupport::read_file(path);
        VImage header = load(bytes);
        int width = header.width();
        int height = vips_image_get_page_height(header.get_image());
        if (vips_image_get_orientation_swap(header.get_image())) {
            std::swap(width, height);
        }
        const Result result = thumbnails::render_image(as_bytes(bytes), m_options);
        expect_thumbnails(result, width, height, false);
        EXPECT_EQ(result.width, width);
        EXPECT_EQ(result.height, height);
    }
}

// Damaged files whose decodable part libvips renders (fail_on none): each gives its three
// thumbnails at the size its header states, and leaves no error text behind.
TEST_F(ThumbnailerTest, DamagedImagesRenderWhatTheirHeaderStates) {
    INGEST_CORPUS_FILE(any, "img/bad/truncated.jpg");
    const struct {
        const char* file;
        int width;
        int height;
    } rows[] = {
        {"broken_exif_dpi.jpg", 100, 100}, {"invalid_multiframe.gif", 10, 9}, {"junk_jpeg_header.jpg", 1024, 768},
        {"truncated.gif", 575, 800},       {"truncated.jpg", 290, 442},
    };
    for (const auto& row : rows) {
        SCOPED_TRACE(row.file);
        const auto path = any.parent_path() / row.file;
        const Result result = thumbnails::render_image(as_bytes(testsupport::read_file(path)), m_options);
        expect_thumbnails(result, row.width, row.height, false);
        EXPECT_EQ(result.width, row.width);
        EXPECT_EQ(result.height, row.height);
        EXPECT_STREQ(vips_error_buffer(), "");
    }
}

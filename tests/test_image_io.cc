#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "core/system.h"
#include "io/image.h"
#include "jpeg_writer.h"
#include "test_util.h"

namespace radiant {
namespace {

ImageF random_image(int w, int h, int c, uint64_t seed) {
    ImageF img(w, h, c);
    Pcg32 rng(seed);
    for (auto& v : img.pixels) v = rng.next_float();
    return img;
}

class PngRoundTrip : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(PngRoundTrip, QuantisedValuesSurvive) {
    const int channels = std::get<0>(GetParam()), depth = std::get<1>(GetParam());
    test::TempDir dir;
    ImageF img = random_image(37, 23, channels, channels * 100 + depth);
    std::string path = dir / "img.png";
    save_png(path, img, depth);
    RawImage raw = load_image(path);
    EXPECT_EQ(raw.width, 37);
    EXPECT_EQ(raw.height, 23);
    EXPECT_EQ(raw.channels, channels);
    EXPECT_EQ(raw.bit_depth, depth);
    ImageF back = to_float(raw);
    const float max_value = depth == 16 ? 65535.0f : 255.0f;
    for (size_t i = 0; i < img.pixels.size(); ++i)
        ASSERT_NEAR(back.pixels[i], std::round(img.pixels[i] * max_value) / max_value, 1e-6f);
    ImageSize size = read_image_size(path);
    EXPECT_EQ(size.width, 37);
    EXPECT_EQ(size.height, 23);
    EXPECT_EQ(size.channels, channels);
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, PngRoundTrip,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4),
                                            ::testing::Values(8, 16)));

TEST(Png, ClampsOutOfRangeAndNaN) {
    test::TempDir dir;
    ImageF img(3, 1, 1);
    img.pixels = {-0.5f, 2.0f, NAN};
    save_png(dir / "c.png", img);
    ImageF back = to_float(load_image(dir / "c.png"));
    EXPECT_EQ(back.pixels[0], 0.0f);
    EXPECT_EQ(back.pixels[1], 1.0f);
    EXPECT_EQ(back.pixels[2], 0.0f);
}

TEST(Jpeg, DecodesRgbAndGray) {
    test::TempDir dir;
    for (int channels : {3, 1}) {
        const int w = 48, h = 32;
        std::vector<unsigned char> px(size_t(w) * h * channels);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < channels; ++c)
                    px[(size_t(y) * w + x) * channels + c] =
                        static_cast<unsigned char>(x * 4 + c * 40);
        std::string path = dir / (channels == 3 ? "rgb.jpg" : "gray.jpg");
        test::write_text(path, test::encode_jpeg(w, h, channels, px));
        RawImage raw = load_image(path);
        EXPECT_EQ(raw.width, w);
        EXPECT_EQ(raw.height, h);
        EXPECT_EQ(raw.channels, channels);
        double err = 0;
        for (size_t i = 0; i < px.size(); ++i) err += std::abs(double(raw.bytes[i]) - px[i]);
        EXPECT_LT(err / px.size(), 3.0) << "JPEG at quality 95 should be close";
        EXPECT_EQ(read_image_size(path).width, w);
    }
}

TEST(ImageErrors, MissingEmptyNotAnImageTruncated) {
    test::TempDir dir;
    EXPECT_RADIANT_ERROR(load_image(dir / "missing.png"), "missing.png", "not found");
    test::write_text(dir / "empty.png", "");
    EXPECT_RADIANT_ERROR(load_image(dir / "empty.png"), "empty.png", "empty");
    test::write_text(dir / "text.png", "this is not an image at all");
    EXPECT_RADIANT_ERROR(load_image(dir / "text.png"), "text.png", "not a PNG or JPEG");

    ImageF img = random_image(64, 64, 3, 5);
    save_png(dir / "full.png", img);
    std::string bytes = read_file(dir / "full.png");
    test::write_text(dir / "cut.png", bytes.substr(0, bytes.size() / 2));
    EXPECT_RADIANT_ERROR(load_image(dir / "cut.png"), "cut.png", "truncated");

    std::vector<unsigned char> px(64 * 64 * 3, 128);
    for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<unsigned char>(i * 7);
    std::string jpg = test::encode_jpeg(64, 64, 3, px);
    test::write_text(dir / "cut.jpg", jpg.substr(0, jpg.size() / 2));
    EXPECT_RADIANT_ERROR(load_image(dir / "cut.jpg"), "cut.jpg", "truncated");
}

TEST(ImageErrors, SaveToMissingFolderFailsWithoutPartialFile) {
    test::TempDir dir;
    ImageF img = random_image(4, 4, 3, 1);
    EXPECT_RADIANT_ERROR(save_png(dir / "no/such/folder/x.png", img), "x.png", "cannot write");
}

}  // namespace
}  // namespace radiant

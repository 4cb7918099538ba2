#include <gtest/gtest.h>

#include <cstdio>

#include "fit/image_fitter.h"
#include "fit/test_pattern.h"
#include "io/image.h"
#include "test_util.h"

namespace radiant {
namespace {

FitImageConfig small_config() {
    FitImageConfig c;
    c.batch = 1 << 13;
    c.log2_hashmap_size = 14;
    c.seed = 7;
    return c;
}

TEST(FitImage, TestPatternReachesPsnrInFixedSteps) {
    ImageF img = make_test_pattern(128, 96);
    ThreadPool pool;
    ImageFitter fitter(img, small_config(), pool);
    const double before = fitter.psnr();
    double loss0 = fitter.step();
    for (int i = 1; i < 300; ++i) fitter.step();
    const double after = fitter.psnr();
    std::printf("[ fit-image ] 128x96 pattern: %.2f dB -> %.2f dB after 300 steps (loss %.2e)\n",
                before, after, loss0);
    EXPECT_LT(before, 15.0);
    EXPECT_GT(after, 25.0);
}

TEST(FitImage, IdenticalParametersForAnyThreadCount) {
    ImageF img = make_test_pattern(64, 48);
    auto train = [&](int threads) {
        ThreadPool pool(threads);
        ImageFitter fitter(img, small_config(), pool);
        for (int i = 0; i < 15; ++i) fitter.step();
        return std::vector<float>(fitter.params().begin(), fitter.params().end());
    };
    auto one = train(1);
    EXPECT_EQ(one, train(2));
    EXPECT_EQ(one, train(3));
}

TEST(FitImage, SameSeedSameResultOtherSeedDiffers) {
    ImageF img = make_test_pattern(32, 32);
    ThreadPool pool(2);
    auto run = [&](uint64_t seed) {
        FitImageConfig c = small_config();
        c.seed = seed;
        ImageFitter f(img, c, pool);
        for (int i = 0; i < 5; ++i) f.step();
        return std::vector<float>(f.params().begin(), f.params().end());
    };
    EXPECT_EQ(run(1), run(1));
    EXPECT_NE(run(1), run(2));
}

TEST(FitImage, RenderHasImageSizeAndGrayInputsWork) {
    ImageF gray(40, 30, 1);
    for (size_t i = 0; i < gray.pixels.size(); ++i) gray.pixels[i] = float(i % 40) / 40.0f;
    ThreadPool pool(2);
    ImageFitter f(gray, small_config(), pool);
    for (int i = 0; i < 100; ++i) f.step();
    ImageF r = f.render();
    EXPECT_EQ(r.width, 40);
    EXPECT_EQ(r.height, 30);
    EXPECT_EQ(r.channels, 3);
    EXPECT_GT(f.psnr(), 25.0);
}

TEST(SharedData, FitsAFoxPhoto) {
    RADIANT_REQUIRE_SHARED_DATA("fox/images/0001.jpg");
    ImageF photo = to_float(load_image(test::shared_data_dir() + "/fox/images/0001.jpg"));
    ThreadPool pool;
    FitImageConfig c;  // the defaults fit-image uses
    ImageFitter f(photo, c, pool);
    for (int i = 0; i < 150; ++i) f.step();
    double psnr = f.psnr();
    std::printf("[ fit-image ] fox photo 1080x1920, 150 steps: %.2f dB\n", psnr);
    EXPECT_GT(psnr, 32.0);
}

}  // namespace
}  // namespace radiant

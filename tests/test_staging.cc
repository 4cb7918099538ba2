#include <gtest/gtest.h>

#include <cstdio>

#include "core/timer.h"
#include "io/staging.h"
#include "scene_builder.h"
#include "test_util.h"

namespace radiant {
namespace {

using nlohmann::json;

TEST(Staging, PacksImagesAndResolvesIntrinsics) {
    test::TempDir dir;
    test::make_synthetic_scene(dir, 3, 8, 6);
    Dataset ds = load_transforms(dir.path().string());
    ThreadPool pool(2);
    ImageSet set = stage_images(ds, {}, pool);
    ASSERT_EQ(set.images.size(), 3u);
    EXPECT_EQ(set.pixel_count(), 3u * 8 * 6);
    EXPECT_EQ(set.images[1].offset, 48u);
    EXPECT_TRUE(set.images[0].had_alpha);
    EXPECT_GT(set.images[0].camera.fl_x, 0.0f);
    // Pixel (x=2, y=1) of image 2 is premultiplied RGBA of the source.
    ImageF src = to_float(load_image(ds.frames[2].image_path));
    const uint8_t* p = set.pixel(2, 2, 1);
    float a = src.at(2, 1, 3);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(p[c] / 255.0f, src.at(2, 1, c) * a, 1.0f / 255);
    EXPECT_NEAR(p[3] / 255.0f, a, 0.5f / 255);
}

TEST(Staging, BoxDownscaleOfPremultipliedColourKnownAnswer) {
    test::TempDir dir;
    // One 2x2 RGBA image: opaque red, transparent (green, ignored), half-alpha blue, opaque white.
    ImageF img(2, 2, 4);
    img.pixels = {1, 0, 0, 1, /**/ 0, 1, 0, 0, /**/ 0, 0, 1, 0.5f, /**/ 1, 1, 1, 1};
    save_png(dir / "a.png", img);
    json j = {{"fl_x", 2.0}, {"w", 2}, {"h", 2}, {"frames", json::array()}};
    j["frames"].push_back({{"file_path", "a.png"}, {"transform_matrix", test::identity_matrix()}});
    test::write_text(dir / "transforms.json", j.dump());
    ThreadPool pool(1);
    ImageSet set = stage_images(load_transforms(dir.path().string()), {2}, pool);
    ASSERT_EQ(set.images[0].width, 1);
    const uint8_t* p = set.pixel(0, 0, 0);
    // premultiplied sums: r = 1 + 0 + 0 + 1, g = 0 + 0 + 0 + 1, b = 0 + 0 + 0.5 + 1, a = 2.5
    EXPECT_NEAR(p[0], 255 * 2.0 / 4, 1.0);
    EXPECT_NEAR(p[1], 255 * 1.0 / 4, 1.0);
    EXPECT_NEAR(p[2], 255 * 1.5 / 4, 1.0);
    EXPECT_NEAR(p[3], 255 * 2.5 / 4, 1.0);
    EXPECT_FLOAT_EQ(set.images[0].camera.fl_x, 1.0f);
}

TEST(StagingErrors, SizeMismatchDownscaleAndCorruptImages) {
    test::TempDir dir;
    json j = test::make_synthetic_scene(dir, 2, 8, 6);
    ThreadPool pool(2);
    Dataset ds = load_transforms(dir.path().string());
    EXPECT_RADIANT_ERROR(stage_images(ds, {3}, pool), "r_0.png", "--downscale 3 does not divide");
    EXPECT_RADIANT_ERROR(stage_images(ds, {0}, pool), "--downscale", "positive");

    j["w"] = 10;
    j["h"] = 6;
    test::write_text(dir / "transforms_train.json", j.dump());
    EXPECT_RADIANT_ERROR(stage_images(load_transforms(dir.path().string()), {}, pool), "r_0.png",
                         "image is 8x6 but");

    j.erase("w");
    j.erase("h");
    test::write_text(dir / "transforms_train.json", j.dump());
    std::string bytes = read_file(dir / "train/r_1.png");
    test::write_text(dir / "train/r_1.png", bytes.substr(0, bytes.size() - 20));
    EXPECT_RADIANT_ERROR(stage_images(load_transforms(dir.path().string()), {}, pool), "r_1.png",
                         "truncated");
    test::write_text(dir / "train/r_1.png", "GIF89a not supported");
    EXPECT_RADIANT_ERROR(stage_images(load_transforms(dir.path().string()), {}, pool), "r_1.png",
                         "not a PNG or JPEG");
}

TEST(SharedData, LegoLoadsAndStages) {
    RADIANT_REQUIRE_SHARED_DATA("lego/transforms_train.json");
    Dataset ds = load_transforms(test::shared_data_dir() + "/lego");
    ASSERT_EQ(ds.frames.size(), 80u);
    EXPECT_TRUE(ds.nerf_synthetic);
    ThreadPool pool;
    ImageSet set = stage_images(ds, {4}, pool);
    std::printf("[ staging ] lego train, 80 views at 200x200: %.3f s\n", set.staging_seconds);
    EXPECT_EQ(set.images[0].width, 200);
    EXPECT_EQ(set.images[79].height, 200);
    EXPECT_NEAR(set.images[0].camera.fl_x, 1111.11f / 4, 0.5f);
    EXPECT_EQ(set.pixel_count(), 80u * 200 * 200);
    Dataset val = load_transforms(test::shared_data_dir() + "/lego/transforms_val.json");
    EXPECT_EQ(val.frames.size(), 10u);
}

TEST(SharedData, FoxLoadsAndStages) {
    RADIANT_REQUIRE_SHARED_DATA("fox/transforms.json");
    Dataset ds = load_transforms(test::shared_data_dir() + "/fox");
    ASSERT_EQ(ds.frames.size(), 45u);
    EXPECT_FALSE(ds.nerf_synthetic);
    EXPECT_FLOAT_EQ(ds.aabb_scale, 4.0f);
    EXPECT_NEAR(ds.frames[0].camera.k1, 0.0578421f, 1e-7f);
    ThreadPool pool;
    ImageSet set = stage_images(ds, {2}, pool);
    std::printf("[ staging ] fox, 45 photos at 540x960: %.3f s\n", set.staging_seconds);
    EXPECT_EQ(set.images[0].width, 540);
    EXPECT_EQ(set.images[0].height, 960);
    EXPECT_FALSE(set.images[0].had_alpha);
    EXPECT_NEAR(set.images[0].camera.cx, 554.558f / 2, 1e-3f);
}

}  // namespace
}  // namespace radiant

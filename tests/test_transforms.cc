#include <gtest/gtest.h>

#include <cmath>

#include "io/transforms.h"
#include "jpeg_writer.h"
#include "scene_builder.h"
#include "test_util.h"

namespace radiant {
namespace {

using nlohmann::json;

TEST(Transforms, NerfSyntheticDialect) {
    test::TempDir dir;
    test::make_synthetic_scene(dir, 3, 8, 6);
    Dataset ds = load_transforms(dir.path().string());  // folder -> transforms_train.json
    EXPECT_TRUE(ds.nerf_synthetic);
    ASSERT_EQ(ds.frames.size(), 3u);
    EXPECT_NE(ds.frames[2].image_path.find("r_2.png"), std::string::npos);
    EXPECT_FLOAT_EQ(ds.frames[0].camera_to_world[11], 4.0f);
    EXPECT_FLOAT_EQ(*ds.frames[0].camera.camera_angle_x, 0.6911112f);
    EXPECT_EQ(ds.frames[0].camera.width, 0) << "size comes from the image";
    EXPECT_FLOAT_EQ(ds.scale, 0.33f);
    EXPECT_FLOAT_EQ(ds.aabb_scale, 1.0f);
    CameraIntrinsics c = ds.frames[0].camera;
    c.width = 8;
    c.height = 6;
    c.resolve();
    EXPECT_NEAR(c.fl_x, 0.5 * 8 / std::tan(0.5 * 0.6911112070083618), 1e-4);
    EXPECT_FLOAT_EQ(c.fl_y, c.fl_x);
    EXPECT_FLOAT_EQ(c.cx, 4.0f);
    EXPECT_FLOAT_EQ(c.cy, 3.0f);
}

TEST(Transforms, InstantNgpDialectWithOverrides) {
    test::TempDir dir;
    std::vector<unsigned char> px(16 * 12 * 3, 100);
    std::filesystem::create_directories(dir.path() / "images");
    for (int i = 0; i < 2; ++i)
        test::write_text(dir / ("images/" + std::to_string(i) + ".jpg"),
                         test::encode_jpeg(16, 12, 3, px));
    json j = {{"fl_x", 20.5},
              {"fl_y", 21.0},
              {"cx", 7.5},
              {"cy", 6.25},
              {"w", 16},
              {"h", 12},
              {"k1", 0.01},
              {"k2", -0.02},
              {"p1", 0.001},
              {"p2", 0.002},
              {"aabb_scale", 4},
              {"scale", 0.5},
              {"offset", {0.5, 0.4, 0.3}}};
    j["frames"] = json::array();
    j["frames"].push_back({{"file_path", "images/0.jpg"},
                           {"sharpness", 30.5},
                           {"transform_matrix", test::identity_matrix()}});
    j["frames"].push_back({{"file_path", "images/1.jpg"},
                           {"fl_x", 30.0},
                           {"k1", 0.5},
                           {"transform_matrix", test::identity_matrix()}});
    test::write_text(dir / "transforms.json", j.dump());
    Dataset ds = load_transforms(dir / "transforms.json");
    EXPECT_FALSE(ds.nerf_synthetic);
    EXPECT_FLOAT_EQ(ds.aabb_scale, 4.0f);
    EXPECT_FLOAT_EQ(ds.scale, 0.5f);
    EXPECT_FLOAT_EQ(ds.offset[2], 0.3f);
    const CameraIntrinsics& a = ds.frames[0].camera;
    EXPECT_EQ(a.width, 16);
    EXPECT_EQ(a.height, 12);
    EXPECT_FLOAT_EQ(a.fl_x, 20.5f);
    EXPECT_FLOAT_EQ(a.fl_y, 21.0f);
    EXPECT_FLOAT_EQ(a.cx, 7.5f);
    EXPECT_FLOAT_EQ(a.cy, 6.25f);
    EXPECT_FLOAT_EQ(a.k1, 0.01f);
    EXPECT_FLOAT_EQ(a.p2, 0.002f);
    EXPECT_FLOAT_EQ(ds.frames[0].sharpness, 30.5f);
    const CameraIntrinsics& b = ds.frames[1].camera;
    EXPECT_FLOAT_EQ(b.fl_x, 30.0f) << "per-frame override";
    EXPECT_FLOAT_EQ(b.fl_y, 21.0f) << "inherited";
    EXPECT_FLOAT_EQ(b.k1, 0.5f);
    CameraIntrinsics d = a.downscaled(2);
    EXPECT_EQ(d.width, 8);
    EXPECT_FLOAT_EQ(d.fl_x, 10.25f);
    EXPECT_FLOAT_EQ(d.cx, 3.75f);
}

// Each malformed input gives one Error naming the file and the problem.
class BadTransforms : public ::testing::Test {
  protected:
    void SetUp() override { base = test::make_synthetic_scene(dir, 2, 8, 8); }
    void expect_error(const json& j, const std::string& reason) {
        test::write_text(dir / "transforms_train.json", j.dump());
        EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms_train.json", reason);
    }
    test::TempDir dir;
    json base;
};

TEST_F(BadTransforms, MissingPathAndFolderWithoutTransforms) {
    EXPECT_RADIANT_ERROR(load_transforms(dir / "nowhere"), "nowhere", "no such file");
    std::filesystem::create_directories(dir.path() / "empty");
    EXPECT_RADIANT_ERROR(load_transforms(dir / "empty"), "empty", "no transforms.json");
}

TEST_F(BadTransforms, JsonThatDoesNotParse) {
    test::write_text(dir / "transforms_train.json", "{\"frames\": [");
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms_train.json",
                         "invalid JSON");
}

TEST_F(BadTransforms, WrongTypesAndMissingFields) {
    json j = base;
    j["frames"][1]["file_path"] = 17;
    expect_error(j, "'file_path' must be a string");
    j = base;
    j["frames"][0].erase("file_path");
    expect_error(j, "frame 0: missing 'file_path'");
    j = base;
    j["frames"][1].erase("transform_matrix");
    expect_error(j, "frame 1: missing 'transform_matrix'");
    j = base;
    j["frames"][0]["transform_matrix"] = "identity";
    expect_error(j, "4x4");
    j = base;
    j["camera_angle_x"] = "wide";
    expect_error(j, "'camera_angle_x' must be a number");
    j = base;
    j.erase("camera_angle_x");
    expect_error(j, "no focal length");
    j = base;
    j["frames"] = json::object();
    expect_error(j, "'frames' must be an array");
    j = base;
    j.erase("frames");
    expect_error(j, "missing 'frames'");
    expect_error(json::array(), "JSON object");
}

TEST_F(BadTransforms, MatrixNotFourByFourOrNotFinite) {
    json j = base;
    j["frames"][0]["transform_matrix"] = json::array({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}});
    expect_error(j, "4x4");
    j = base;
    j["frames"][0]["transform_matrix"][1] = json::array({0, 1, 0});
    expect_error(j, "4x4");
    // JSON has no NaN, but Python's json.dump writes it; an overflowing literal is infinite.
    for (const char* bad : {"[NaN,0,0,0]", "[1e999,0,0,0]"}) {
        std::string text = base.dump();
        auto pos = text.find("[1,0,0,0]");
        ASSERT_NE(pos, std::string::npos);
        text.replace(pos, 9, bad);
        test::write_text(dir / "transforms_train.json", text);
        EXPECT_RADIANT_ERROR(
            load_transforms(dir.path().string()), "transforms_train.json",
            std::string(bad).find("NaN") != std::string::npos ? "non-finite" : "invalid JSON");
    }
}

TEST_F(BadTransforms, ZeroFramesAndBadValues) {
    json j = base;
    j["frames"] = json::array();
    expect_error(j, "'frames' is empty");
    j = base;
    j["aabb_scale"] = 0.5;
    expect_error(j, "'aabb_scale' must be >= 1");
    j = base;
    j["w"] = -3;
    expect_error(j, "'w' must be positive");
    j = base;
    j["cx"] = 3;
    expect_error(j, "'cx' and 'cy'");
    // Finite as a double, infinite as the float it is kept in (found by fuzz_transforms).
    j = base;
    j["offset"] = json::array({1e300, 0, 0});
    expect_error(j, "'offset' must be an array of 3 finite numbers within +-1e30");
}

TEST_F(BadTransforms, MissingImage) {
    std::filesystem::remove(dir.path() / "train/r_1.png");
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "r_1", "image file not found");
}

}  // namespace
}  // namespace radiant

namespace radiant {
namespace {

TEST(Transforms, HoldoutSplitsEveryKthView) {
    Dataset d;
    d.json_path = "scene/transforms.json";
    for (int i = 0; i < 10; ++i) d.frames.push_back(Frame{"img" + std::to_string(i), {}, {}, 0});
    Dataset held = d, train = d;
    select_holdout(held, 4, true);
    select_holdout(train, 4, false);
    ASSERT_EQ(held.frames.size(), 2u);
    EXPECT_EQ(held.frames[0].image_path, "img3");
    EXPECT_EQ(held.frames[1].image_path, "img7");
    EXPECT_EQ(train.frames.size(), 8u);
    for (const Frame& f : train.frames) EXPECT_NE(f.image_path, "img3");
    Dataset few = d;
    EXPECT_RADIANT_ERROR(select_holdout(few, 11, true), "scene/transforms.json",
                         "leaves no held-out views");
    EXPECT_RADIANT_ERROR(select_holdout(few, 1, true), "scene/transforms.json", "at least 2");
}

}  // namespace
}  // namespace radiant

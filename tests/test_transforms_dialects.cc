// The nerfstudio dialect, fisheye and k3 distortion, and the transforms writer's round trip.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/rng.h"
#include "io/transforms.h"
#include "io/transforms_writer.h"
#include "scene/camera.h"
#include "test_util.h"

namespace radiant {
namespace {

using nlohmann::json;
using test::TempDir;
using test::write_text;

json pose(double x, double y, double z) {
    // A camera at (x, y, z) looking at the origin-ish (the exact rotation does not matter here:
    // identity columns rotated so -z points towards -position).
    const double n = std::sqrt(x * x + y * y + z * z);
    const double fz[3] = {x / n, y / n, z / n};  // +z axis = away from the origin
    double up[3] = {0, 0, 1};
    double rx[3] = {up[1] * fz[2] - up[2] * fz[1], up[2] * fz[0] - up[0] * fz[2],
                    up[0] * fz[1] - up[1] * fz[0]};
    const double rn = std::sqrt(rx[0] * rx[0] + rx[1] * rx[1] + rx[2] * rx[2]);
    for (double& v : rx) v /= rn;
    const double uy[3] = {fz[1] * rx[2] - fz[2] * rx[1], fz[2] * rx[0] - fz[0] * rx[2],
                          fz[0] * rx[1] - fz[1] * rx[0]};
    return json::array({json::array({rx[0], uy[0], fz[0], x}),
                        json::array({rx[1], uy[1], fz[1], y}),
                        json::array({rx[2], uy[2], fz[2], z}), json::array({0, 0, 0, 1})});
}

TEST(TransformsDialects, NerfstudioFisheyeWithPerFrameIntrinsics) {
    TempDir dir;
    json j;
    j["camera_model"] = "OPENCV_FISHEYE";
    j["fl_x"] = 300.0;
    j["fl_y"] = 301.0;
    j["cx"] = 320.0;
    j["cy"] = 240.0;
    j["w"] = 640;
    j["h"] = 480;
    j["k1"] = 0.05;
    j["k2"] = -0.01;
    j["k3"] = 0.002;
    j["k4"] = -0.0003;
    j["applied_transform"] = json::array(
        {json::array({0, 1, 0, 0}), json::array({1, 0, 0, 0}), json::array({0, 0, -1, 0})});
    j["frames"] = json::array();
    // Cameras of a capture 30 units from (100, 0, 0), in COLMAP's arbitrary scale.
    for (int i = 0; i < 6; ++i) {
        const double a = i * 1.0472;
        json f = {{"file_path", "images/f" + std::to_string(i) + ".png"},
                  {"transform_matrix", pose(30 * std::cos(a), 30 * std::sin(a), 10)}};
        for (int r = 0; r < 3; ++r)
            f["transform_matrix"][r][3] =
                f["transform_matrix"][r][3].get<double>() + (r == 0 ? 100 : 0);
        if (i == 2) f["fl_x"] = 350.0;
        j["frames"].push_back(f);
        std::filesystem::create_directories(dir / "images");
        write_text(dir / ("images/f" + std::to_string(i) + ".png"), "x");
    }
    write_text(dir / "transforms.json", j.dump());
    const Dataset ds = load_transforms(dir.path().string());
    EXPECT_EQ(ds.dialect, TransformsDialect::kNerfstudio);
    ASSERT_TRUE(ds.applied_transform.has_value());
    EXPECT_EQ((*ds.applied_transform)[1], 1.0);
    EXPECT_EQ((*ds.applied_transform)[15], 1.0);
    const CameraIntrinsics& c = ds.frames[0].camera;
    EXPECT_TRUE(c.fisheye);
    EXPECT_FLOAT_EQ(c.k3, 0.002f);
    EXPECT_FLOAT_EQ(c.k4, -0.0003f);
    EXPECT_FLOAT_EQ(ds.frames[2].camera.fl_x, 350.0f);
    EXPECT_FLOAT_EQ(ds.frames[3].camera.fl_x, 300.0f);
    // Poses kept as written; scale/offset put the looked-at point (100, 0, 0) in the middle of
    // the unit cube and the cameras at 0.33 * 4 from it.
    EXPECT_FLOAT_EQ(ds.frames[0].camera_to_world[3], float(100 + 30));
    const float ux = 100 * ds.scale + ds.offset[0], uy = 0 * ds.scale + ds.offset[1],
                uz = 0 * ds.scale + ds.offset[2];
    EXPECT_NEAR(ux, 0.5f, 1e-4f);
    EXPECT_NEAR(uy, 0.5f, 1e-4f);
    EXPECT_NEAR(uz, 0.5f, 1e-4f);
    EXPECT_NEAR(ds.scale * std::sqrt(30.0 * 30 + 10 * 10), 0.33 * 4, 1e-4);
    EXPECT_GE(ds.aabb_scale, 4.0f);
}

TEST(TransformsDialects, NerfstudioWithExplicitScaleIsLeftAlone) {
    TempDir dir;
    write_text(dir / "a.png", "x");
    json j = {
        {"camera_model", "OPENCV"},
        {"fl_x", 100.0},
        {"w", 64},
        {"h", 64},
        {"scale", 0.5},
        {"aabb_scale", 2},
        {"frames", json::array({{{"file_path", "a.png"}, {"transform_matrix", pose(3, 0, 0)}}})}};
    write_text(dir / "transforms.json", j.dump());
    const Dataset ds = load_transforms(dir.path().string());
    EXPECT_EQ(ds.scale, 0.5f);
    EXPECT_EQ(ds.aabb_scale, 2.0f);
    EXPECT_FALSE(ds.frames[0].camera.fisheye);
}

// A rotation with a zero column gives no optical axis; it used to turn the whole centring NaN
// (found by fuzz_transforms). The other cameras still centre the scene.
TEST(TransformsDialects, NerfstudioCameraWithoutAnAxisIsLeftOutOfTheCentring) {
    TempDir dir;
    write_text(dir / "a.png", "x");
    json frames = json::array();
    for (int i = 0; i < 4; ++i) {
        const double a = i * 1.5708;
        frames.push_back({{"file_path", "a.png"},
                          {"transform_matrix", pose(5 * std::cos(a), 5 * std::sin(a), 1)}});
    }
    json degenerate = {
        {"file_path", "a.png"},
        {"transform_matrix", json::array({json::array({0, 0, 0, 1}), json::array({0, 0, 0, 2}),
                                          json::array({0, 0, 0, 3}), json::array({0, 0, 0, 1})})}};
    frames.push_back(degenerate);
    json j = {
        {"camera_model", "OPENCV"}, {"fl_x", 100.0}, {"w", 64}, {"h", 64}, {"frames", frames}};
    write_text(dir / "transforms.json", j.dump());
    const Dataset ds = load_transforms(dir.path().string());
    ASSERT_TRUE(std::isfinite(ds.scale));
    EXPECT_GT(ds.scale, 0.0f);
    // The four real cameras look at the origin, which lands in the middle of the unit cube.
    for (float v : ds.offset) EXPECT_NEAR(v, 0.5f, 1e-4f);
}

TEST(TransformsDialects, BadCameraModelsAreNamed) {
    TempDir dir;
    write_text(dir / "a.png", "x");
    json j = {
        {"camera_model", "EQUIRECTANGULAR"},
        {"fl_x", 100.0},
        {"w", 64},
        {"h", 64},
        {"frames", json::array({{{"file_path", "a.png"}, {"transform_matrix", pose(3, 0, 0)}}})}};
    write_text(dir / "transforms.json", j.dump());
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms.json",
                         "camera_model 'EQUIRECTANGULAR' is not supported");
    j["camera_model"] = "OPENCV_FISHEYE";
    j["p1"] = 0.01;
    write_text(dir / "transforms.json", j.dump());
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms.json",
                         "fisheye camera takes k1..k4");
    j.erase("p1");
    j["applied_transform"] = json::array({1, 2, 3});
    write_text(dir / "transforms.json", j.dump());
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms.json",
                         "'applied_transform' must be");
    j.erase("applied_transform");
    j["is_fisheye"] = "yes";
    write_text(dir / "transforms.json", j.dump());
    EXPECT_RADIANT_ERROR(load_transforms(dir.path().string()), "transforms.json",
                         "'is_fisheye' must be true or false");
}

TEST(TransformsDialects, WriterRoundTripsFisheyeAndK3) {
    TempDir dir;
    write_text(dir / "a.png", "x");
    write_text(dir / "b.png", "x");
    Dataset ds;
    ds.aabb_scale = 16;
    ds.scale = 0.25f;
    ds.offset = {0.5f, 0.4f, 0.6f};
    for (const char* name : {"a.png", "b.png"}) {
        Frame f;
        f.image_path = dir / name;
        f.camera.width = 320;
        f.camera.height = 200;
        f.camera.fl_x = 150.5f;
        f.camera.fl_y = 151.25f;
        f.camera.cx = 161.5f;
        f.camera.cy = 99.75f;
        f.camera.has_principal_point = true;
        f.camera.fisheye = name[0] == 'a';
        f.camera.k1 = 0.1f;
        f.camera.k2 = -0.05f;
        f.camera.k3 = 0.01f;
        f.camera.k4 = f.camera.fisheye ? 0.002f : 0.0f;
        f.camera.p1 = f.camera.fisheye ? 0.0f : 0.001f;
        f.camera_to_world = {1, 0, 0, 1.5f, 0, 0, -1, 2.5f, 0, 1, 0, -0.5f, 0, 0, 0, 1};
        f.sharpness = 42.5f;
        ds.frames.push_back(f);
    }
    save_transforms(dir / "out.json", ds);
    const Dataset back = load_transforms(dir / "out.json");
    ASSERT_EQ(back.frames.size(), 2u);
    EXPECT_EQ(back.aabb_scale, 16.0f);
    EXPECT_EQ(back.scale, 0.25f);
    EXPECT_EQ(back.offset, ds.offset);
    for (size_t i = 0; i < 2; ++i) {
        const CameraIntrinsics &a = back.frames[i].camera, &b = ds.frames[i].camera;
        EXPECT_EQ(a.fisheye, b.fisheye);
        EXPECT_EQ(a.width, b.width);
        EXPECT_EQ(a.fl_y, b.fl_y);
        EXPECT_EQ(a.cx, b.cx);
        EXPECT_EQ(a.k3, b.k3);
        EXPECT_EQ(a.k4, b.k4);
        EXPECT_EQ(a.p1, b.p1);
        EXPECT_EQ(back.frames[i].camera_to_world, ds.frames[i].camera_to_world);
        EXPECT_EQ(back.frames[i].sharpness, 42.5f);
        EXPECT_EQ(back.frames[i].image_path, ds.frames[i].image_path);
    }
}

TEST(CameraModels, FisheyeDistortRoundTripAndEquidistantKnownAnswer) {
    CameraIntrinsics c;
    c.width = 640;
    c.height = 480;
    c.fl_x = c.fl_y = 200;
    c.cx = 320;
    c.cy = 240;
    c.fisheye = true;
    // Undistorted equidistant: a pixel r pixels from the centre sees r / f radians off-axis.
    for (float r : {0.0f, 50.0f, 200.0f, 300.0f}) {
        const Vec3 d = pixel_direction(c, 320 + r, 240);
        const float angle = std::atan2(std::sqrt(d.x * d.x + d.y * d.y), d.z);
        EXPECT_NEAR(angle, r / 200.0f, 1e-5f);
    }
    // Beyond 90 degrees the direction points backwards (z < 0), no tan() blow-up.
    EXPECT_LT(pixel_direction(c, 320 + 400, 240).z, 0.0f);
    c.k1 = 0.08f, c.k2 = -0.02f, c.k3 = 0.004f, c.k4 = -0.0005f;
    Pcg32 rng(1, 0);
    for (int i = 0; i < 100; ++i) {
        const float x = rng.next_float() * 2 - 1, y = rng.next_float() * 2 - 1;
        float xd, yd, xu, yu;
        distort(c, x, y, xd, yd);
        undistort(c, xd, yd, xu, yu);
        EXPECT_NEAR(xu, x, 2e-5f);
        EXPECT_NEAR(yu, y, 2e-5f);
        // The ray through the distorted pixel is the ray through (x, y, 1).
        const Vec3 d = pixel_direction(c, c.cx + xd * c.fl_x, c.cy + yd * c.fl_y);
        EXPECT_NEAR(d.x / d.z, x, 5e-5f);
        EXPECT_NEAR(d.y / d.z, y, 5e-5f);
    }
}

TEST(CameraModels, RadialTangentialWithK3RoundTrips) {
    CameraIntrinsics c;
    c.k1 = 0.05f, c.k2 = -0.02f, c.k3 = 0.01f, c.p1 = 0.001f, c.p2 = -0.0015f;
    Pcg32 rng(2, 0);
    for (int i = 0; i < 100; ++i) {
        const float x = rng.next_float() - 0.5f, y = rng.next_float() - 0.5f;
        float xd, yd, xu, yu;
        distort(c, x, y, xd, yd);
        const float r2 = x * x + y * y;
        EXPECT_NEAR(xd,
                    x * (1 + c.k1 * r2 + c.k2 * r2 * r2 + c.k3 * r2 * r2 * r2) + 2 * c.p1 * x * y +
                        c.p2 * (r2 + 2 * x * x),
                    1e-6f);
        undistort(c, xd, yd, xu, yu);
        EXPECT_NEAR(xu, x, 1e-5f);
        EXPECT_NEAR(yu, y, 1e-5f);
    }
}

}  // namespace
}  // namespace radiant

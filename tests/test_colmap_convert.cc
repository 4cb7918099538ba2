// COLMAP model -> Radiant scene: the converted cameras see exactly the rays the originals
// saw, moved by the recorded normalisation; up, centre, scale and aabb_scale as documented.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "colmap_test_util.h"
#include "core/rng.h"
#include "io/transforms.h"
#include "io/transforms_writer.h"
#include "prepare/colmap_convert.h"
#include "prepare/pose_compare.h"
#include "scene/camera.h"
#include "test_util.h"

namespace radiant {
namespace {

using test::TempDir;
using test::write_text;

std::array<float, 16> pose_matrix(const Mat3d& r, const Vec3d& c) {
    std::array<float, 16> m{};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) m[size_t(i * 4 + j)] = float(r(i, j));
        m[size_t(i * 4 + 3)] = float(c[i]);
    }
    m[15] = 1;
    return m;
}

TEST(ColmapConvert, RaysEqualTheOriginalsUnderTheNormalisation) {
    const Vec3d target{3, -1, 2}, up = normalized(Vec3d{0.2, -0.3, 1});
    test::KnownCapture cap = test::known_capture(12, target, 10.0, up, 50, 3.0);
    TempDir dir;
    write_colmap_model(cap.model, dir.path().string(), true);
    const ConvertedScene scene =
        convert_colmap_model(read_colmap_model(dir.path().string()), "imgs", "model");
    const Similarity& s = scene.normalization.to_scene;
    ASSERT_EQ(scene.dataset.frames.size(), 12u);
    const CameraIntrinsics original = colmap_intrinsics(cap.model.cameras[0], "m");
    const SceneTransform world{1.0f, {0, 0, 0}};
    Pcg32 rng(11, 0);
    for (size_t i = 0; i < 12; ++i) {
        const Frame& f = scene.dataset.frames[i];  // sorted by name = capture order here
        EXPECT_EQ(f.image_path,
                  (std::filesystem::path("imgs") / cap.model.images[i].name).string());
        const auto before = pose_matrix(cap.rotations[i], cap.centres[i]);
        for (int k = 0; k < 20; ++k) {
            const float px = rng.next_float() * 64, py = rng.next_float() * 48;
            const Ray a = camera_ray(original, before, world, px, py);
            const Ray b = camera_ray(f.camera, f.camera_to_world, world, px, py);
            const Vec3d ao = s.apply({a.origin.x, a.origin.y, a.origin.z});
            const Vec3d ad = s.rotation * Vec3d{a.direction.x, a.direction.y, a.direction.z};
            EXPECT_NEAR(b.origin.x, ao.x, 1e-4);
            EXPECT_NEAR(b.origin.y, ao.y, 1e-4);
            EXPECT_NEAR(b.origin.z, ao.z, 1e-4);
            EXPECT_NEAR(b.direction.x, ad.x, 1e-5);
            EXPECT_NEAR(b.direction.y, ad.y, 1e-5);
            EXPECT_NEAR(b.direction.z, ad.z, 1e-5);
        }
    }
    // The documented frame: mean up is +z, the looked-at point is the origin, mean distance 4.
    Vec3d mean_up;
    double mean_distance = 0;
    for (const Frame& f : scene.dataset.frames) {
        mean_up += Vec3d{f.camera_to_world[1], f.camera_to_world[5], f.camera_to_world[9]};
        mean_distance +=
            norm(Vec3d{f.camera_to_world[3], f.camera_to_world[7], f.camera_to_world[11]});
    }
    mean_up = normalized(mean_up);
    EXPECT_NEAR(mean_up.z, 1.0, 1e-6);
    EXPECT_NEAR(norm(s.apply(target)), 0.0, 1e-6);
    EXPECT_NEAR(mean_distance / 12, kNormalizedCameraDistance, 1e-4);
    EXPECT_NEAR(s.scale, 0.4, 1e-9);
    EXPECT_FALSE(scene.normalization.centre_from_points);
    // Points within 3 world units (1.2 after scaling) and cameras at 4: the box must hold the
    // cameras, 2 * 0.33 * 4 = 2.64 -> 4.
    EXPECT_EQ(scene.dataset.aabb_scale, 4.0f);
    EXPECT_NEAR(scene.mean_reprojection_error, cap.model.mean_reprojection_error(), 1e-12);
    ASSERT_TRUE(scene.dataset.applied_transform.has_value());
    EXPECT_EQ(*scene.dataset.applied_transform, s.matrix());
}

TEST(ColmapConvert, AabbScaleGrowsWithTheScenePoints) {
    // Points out to 25 world units = 10 after scaling: 2 * 0.33 * 9 (90th percentile) -> 8.
    const test::KnownCapture cap = test::known_capture(10, {0, 0, 0}, 10.0, {0, 0, 1}, 200, 25.0);
    const ConvertedScene scene = convert_colmap_model(cap.model, "imgs", "model");
    EXPECT_EQ(scene.dataset.aabb_scale, 8.0f);
}

TEST(ColmapConvert, ForwardFacingCapturesCentreOnThePoints) {
    // All cameras looking the same way: their axes do not meet, so the points' median is used.
    test::KnownCapture cap;
    ColmapCamera cam;
    cam.id = 1;
    cam.model_id = 1;
    cam.width = 64;
    cam.height = 48;
    cam.params = {60, 60, 32, 24};
    cap.model.cameras.push_back(cam);
    const Mat3d r = test::look_at_rotation({0, 0, 0}, {0, 10, 0}, {0, 0, 1});
    for (int i = 0; i < 6; ++i)
        cap.model.images.push_back(test::colmap_image(uint32_t(i + 1), 1, fmt::format("f{}", i), r,
                                                      {i * 0.5 - 1.5, 0, 0}));
    for (int i = 0; i < 30; ++i) {
        ColmapPoint3D p;
        p.id = uint64_t(i + 1);
        p.xyz = {double(i % 5) - 2, 10.0 + (i % 3), double(i % 4) - 1.5};
        cap.model.points.push_back(p);
    }
    const ConvertedScene scene = convert_colmap_model(cap.model, "imgs", "model");
    EXPECT_TRUE(scene.normalization.centre_from_points);
    EXPECT_NEAR(scene.normalization.centre.y, 11.0, 1e-9);
}

TEST(ColmapConvert, WrittenTransformsReadBackAndMatchPoses) {
    const test::KnownCapture cap = test::known_capture(8, {1, 1, 1}, 6.0, {0, 1, 1}, 20, 1.0);
    TempDir dir;
    std::filesystem::create_directories(dir / "images");
    ConvertedScene scene = convert_colmap_model(cap.model, dir / "images", "model");
    for (auto& f : scene.dataset.frames) {
        write_text(f.image_path, "x");  // the loader checks that the files exist
        f.sharpness = 12.5f;
    }
    save_transforms(dir / "transforms.json", scene.dataset, {{"note", "test"}});
    const Dataset back = load_transforms(dir.path().string());
    ASSERT_EQ(back.frames.size(), scene.dataset.frames.size());
    EXPECT_EQ(back.aabb_scale, scene.dataset.aabb_scale);
    EXPECT_EQ(back.scale, scene.dataset.scale);
    EXPECT_EQ(back.offset, scene.dataset.offset);
    EXPECT_TRUE(back.applied_transform.has_value());
    for (size_t i = 0; i < back.frames.size(); ++i) {
        const Frame &a = back.frames[i], &b = scene.dataset.frames[i];
        EXPECT_EQ(a.camera_to_world, b.camera_to_world);
        EXPECT_EQ(std::filesystem::path(a.image_path).filename(),
                  std::filesystem::path(b.image_path).filename());
        EXPECT_EQ(a.sharpness, 12.5f);
        EXPECT_EQ(a.camera.fl_x, b.camera.fl_x);
        EXPECT_EQ(a.camera.cy, b.camera.cy);
        EXPECT_EQ(a.camera.k1, b.camera.k1);
        EXPECT_EQ(a.camera.p2, b.camera.p2);
        EXPECT_EQ(a.camera.width, 64);
    }
    // Comparing with the truth (in COLMAP's frame) up to a similarity gives zero error.
    Dataset truth;
    for (size_t i = 0; i < cap.rotations.size(); ++i) {
        Frame f;
        f.image_path = cap.model.images[i].name;
        f.camera_to_world = pose_matrix(cap.rotations[i], cap.centres[i]);
        truth.frames.push_back(f);
    }
    const PoseComparison c = compare_poses(back, truth);
    EXPECT_EQ(c.matched, 8u);
    EXPECT_LT(c.mean_rotation_error_deg, 1e-3);
    EXPECT_LT(c.max_centre_error, 1e-5);
    EXPECT_NEAR(c.estimated_to_reference.scale, 6.0 / 4.0, 1e-5);
}

TEST(ColmapConvert, PerImageCamerasAreWrittenPerFrame) {
    test::KnownCapture cap = test::known_capture(4, {0, 0, 0}, 5.0, {0, 0, 1});
    ColmapCamera second = cap.model.cameras[0];
    second.id = 2;
    second.params[0] = 70;
    cap.model.cameras.push_back(second);
    cap.model.images[2].camera_id = 2;
    TempDir dir;
    ConvertedScene scene = convert_colmap_model(cap.model, dir / "images", "model");
    std::filesystem::create_directories(dir / "images");
    for (auto& f : scene.dataset.frames) write_text(f.image_path, "x");
    save_transforms(dir / "transforms.json", scene.dataset);
    const Dataset back = load_transforms(dir / "transforms.json");
    EXPECT_EQ(back.frames[2].camera.fl_x, 70.0f);
    EXPECT_EQ(back.frames[1].camera.fl_x, 60.0f);
}

}  // namespace
}  // namespace radiant

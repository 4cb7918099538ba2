// Camera paths: the spline passes through its keyframes, the JSON round-trips, bad files are
// named, and `radiant render --path` renders the right frames.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"
#include "demo/demo_scene.h"
#include "io/image.h"
#include "scene/camera_path.h"
#include "small_demo_scene.h"
#include "test_util.h"

namespace radiant {
namespace {

CameraKeyframe key(double angle, double height, double fov) {
    CameraKeyframe k;
    const Vec3d eye{4 * std::cos(angle), 4 * std::sin(angle), height};
    const Vec3d f = normalized(Vec3d{0, 0, 0.25} - eye), r = normalized(cross(f, {0, 0, 1})),
                u = cross(r, f);
    k.rotation.set_column(0, r);
    k.rotation.set_column(1, u);
    k.rotation.set_column(2, f * -1.0);
    k.position = eye;
    k.fov_x = fov;
    return k;
}

CameraPath sample_path(bool loop) {
    CameraPath p;
    p.width = 48;
    p.height = 32;
    p.fps = 4;
    p.seconds = 2;
    p.loop = loop;
    p.keyframes = {key(0, 1, 0.7), key(1.2, 1.5, 0.6), key(2.5, 2, 0.8), key(3.5, 1, 0.7)};
    return p;
}

TEST(CameraPath, PassesThroughItsKeyframes) {
    for (bool loop : {false, true}) {
        const CameraPath p = sample_path(loop);
        const double segments = loop ? 4 : 3;
        for (size_t i = 0; i < (loop ? 4u : 4u); ++i) {
            const CameraKeyframe k = sample_camera_path(p, double(i) / segments);
            EXPECT_NEAR(norm(k.position - p.keyframes[i].position), 0, 1e-9) << i;
            EXPECT_LT(rotation_angle_degrees(k.rotation, p.keyframes[i].rotation), 1e-6) << i;
            EXPECT_NEAR(k.fov_x, p.keyframes[i].fov_x, 1e-12);
        }
        // In between: a proper rotation, near the keyframes' circle.
        const CameraKeyframe mid = sample_camera_path(p, 0.5 / segments);
        EXPECT_NEAR(mid.rotation.determinant(), 1.0, 1e-9);
        EXPECT_NEAR(std::hypot(mid.position.x, mid.position.y), 4.0, 0.6);  // a spline, not an arc
    }
    EXPECT_EQ(sample_path(false).frame_count(), 8);
}

TEST(CameraPath, JsonRoundTripAndErrors) {
    test::TempDir dir;
    const CameraPath p = sample_path(true);
    save_camera_path(dir / "p.json", p);
    const CameraPath q = load_camera_path(dir / "p.json");
    EXPECT_EQ(q.width, 48);
    EXPECT_EQ(q.fps, 4);
    EXPECT_TRUE(q.loop);
    ASSERT_EQ(q.keyframes.size(), 4u);
    EXPECT_NEAR(norm(q.keyframes[2].position - p.keyframes[2].position), 0, 1e-5);
    nlohmann::json j = camera_path_to_json(p);
    j["keyframes"] = nlohmann::json::array({j["keyframes"][0]});
    EXPECT_RADIANT_ERROR(camera_path_from_json(j, "p.json"), "p.json", "at least 2 keyframes");
    j = camera_path_to_json(p);
    j["keyframes"][1]["transform_matrix"][0][0] = 2.0;
    EXPECT_RADIANT_ERROR(camera_path_from_json(j, "p.json"), "p.json",
                         "keyframe 1: 'transform_matrix' does not hold a rotation");
    j = camera_path_to_json(p);
    j["fps"] = 0;
    EXPECT_RADIANT_ERROR(camera_path_from_json(j, "p.json"), "p.json", "'fps' must be");
    j = camera_path_to_json(p);
    j.erase("format");
    EXPECT_RADIANT_ERROR(camera_path_from_json(j, "p.json"), "p.json", "not a camera path");
}

TEST(CameraPath, RenderPathWritesItsFrames) {
    test::TempDir dir;
    const DemoScene scene = test::write_tiny_demo_scene(dir / "scene", 1);
    test::RunResult r =
        test::run_radiant(dir, "train " + scene.train_json +
                                   " --steps 20 --target-samples 4096 --log2-table 14 --snapshot " +
                                   (dir / "s.radiant"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    save_camera_path(dir / "path.json", sample_path(false));
    r = test::run_radiant(dir, "render " + (dir / "s.radiant") + " --path " + (dir / "path.json") +
                                   " --out-dir " + (dir / "frames"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(dir / "frames/frame_0007.png"));
    EXPECT_FALSE(std::filesystem::exists(dir / "frames/frame_0008.png"));
    const RawImage f = load_image(dir / "frames/frame_0000.png");
    EXPECT_EQ(f.width, 48);
    EXPECT_EQ(f.height, 32);
    test::expect_bad_input(dir,
                           "render " + (dir / "s.radiant") + " --path " + (dir / "path.json") +
                               " --orbit 3 --out-dir " + (dir / "x"),
                           "give one of");
}

}  // namespace
}  // namespace radiant

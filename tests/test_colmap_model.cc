// COLMAP model files: binary and text round trips, and every malformed input named.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "colmap_test_util.h"
#include "prepare/colmap_model.h"
#include "test_util.h"

namespace radiant {
namespace {

using test::TempDir;
using test::write_text;

ColmapModel sample_model() {
    ColmapModel m = test::known_capture(5, {1, 2, 3}, 5.0, {0, 0, 1}, 7, 2.0).model;
    ColmapCamera fisheye;
    fisheye.id = 7;
    fisheye.model_id = 5;  // OPENCV_FISHEYE
    fisheye.width = 320;
    fisheye.height = 240;
    fisheye.params = {150, 151, 160.5, 119.5, 0.1, -0.02, 0.003, -0.0004};
    m.cameras.push_back(fisheye);
    m.images[1].camera_id = 7;
    m.images[2].name = "sub dir/with space.jpg";  // names may hold folders and spaces
    m.images[0].points2d = {{1.25, 2.5, 3}, {4.0, 5.0, -1}};
    return m;
}

void expect_same(const ColmapModel& a, const ColmapModel& b) {
    ASSERT_EQ(a.cameras.size(), b.cameras.size());
    for (size_t i = 0; i < a.cameras.size(); ++i) {
        EXPECT_EQ(a.cameras[i].id, b.cameras[i].id);
        EXPECT_EQ(a.cameras[i].model_id, b.cameras[i].model_id);
        EXPECT_EQ(a.cameras[i].width, b.cameras[i].width);
        EXPECT_EQ(a.cameras[i].height, b.cameras[i].height);
        EXPECT_EQ(a.cameras[i].params, b.cameras[i].params);
    }
    ASSERT_EQ(a.images.size(), b.images.size());
    for (size_t i = 0; i < a.images.size(); ++i) {
        EXPECT_EQ(a.images[i].id, b.images[i].id);
        EXPECT_EQ(a.images[i].qvec, b.images[i].qvec);
        EXPECT_EQ(a.images[i].tvec, b.images[i].tvec);
        EXPECT_EQ(a.images[i].camera_id, b.images[i].camera_id);
        EXPECT_EQ(a.images[i].name, b.images[i].name);
        ASSERT_EQ(a.images[i].points2d.size(), b.images[i].points2d.size());
        for (size_t k = 0; k < a.images[i].points2d.size(); ++k) {
            EXPECT_EQ(a.images[i].points2d[k].x, b.images[i].points2d[k].x);
            EXPECT_EQ(a.images[i].points2d[k].point3d_id, b.images[i].points2d[k].point3d_id);
        }
    }
    ASSERT_EQ(a.points.size(), b.points.size());
    for (size_t i = 0; i < a.points.size(); ++i) {
        EXPECT_EQ(a.points[i].id, b.points[i].id);
        EXPECT_EQ(a.points[i].xyz.x, b.points[i].xyz.x);
        EXPECT_EQ(a.points[i].xyz.z, b.points[i].xyz.z);
        EXPECT_EQ(a.points[i].rgb, b.points[i].rgb);
        EXPECT_EQ(a.points[i].error, b.points[i].error);
        ASSERT_EQ(a.points[i].track.size(), b.points[i].track.size());
        EXPECT_EQ(a.points[i].track[1].image_id, b.points[i].track[1].image_id);
    }
}

TEST(ColmapModel, BinaryRoundTrip) {
    TempDir dir;
    const ColmapModel m = sample_model();
    write_colmap_model(m, dir.path().string(), true);
    EXPECT_TRUE(is_colmap_model_folder(dir.path().string()));
    expect_same(m, read_colmap_model(dir.path().string()));
}

TEST(ColmapModel, TextRoundTripIsExact) {
    TempDir dir;
    const ColmapModel m = sample_model();
    write_colmap_model(m, dir.path().string(), false);
    expect_same(m, read_colmap_model(dir.path().string()));
    // Binary preferred over text when both exist; both hold the same model here.
    write_colmap_model(m, dir.path().string(), true);
    expect_same(m, read_colmap_model(dir.path().string()));
}

TEST(ColmapModel, MeanReprojectionError) {
    ColmapModel m;
    EXPECT_EQ(m.mean_reprojection_error(), 0.0);
    m.points.resize(2);
    m.points[0].error = 0.5;
    m.points[1].error = 1.5;
    EXPECT_DOUBLE_EQ(m.mean_reprojection_error(), 1.0);
}

TEST(ColmapModel, TruncatedAndCorruptBinaryFilesAreNamed) {
    TempDir dir;
    write_colmap_model(sample_model(), dir.path().string(), true);
    const std::string images = dir / "images.bin";
    std::string bytes = read_file(images);
    write_text(images, bytes.substr(0, bytes.size() - 5));
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "images.bin", "truncated");
    // A count no file could hold is refused before allocating.
    std::string huge = bytes;
    const uint64_t n = uint64_t(1) << 60;
    std::memcpy(huge.data(), &n, 8);
    write_text(images, huge);
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "images.bin",
                         "more than the file");
    write_text(images, bytes + "x");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "images.bin", "unexpected bytes");
    write_text(images, bytes);
    const std::string cams = dir / "cameras.bin";
    std::string cb = read_file(cams);
    const int32_t bad_model = 99;
    std::memcpy(cb.data() + 8 + 4, &bad_model, 4);
    write_text(cams, cb);
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "cameras.bin",
                         "unknown camera model id 99");
}

TEST(ColmapModel, ImageWithAMissingCameraIsRefused) {
    TempDir dir;
    ColmapModel m = sample_model();
    m.images[3].camera_id = 42;
    write_colmap_model(m, dir.path().string(), false);
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "images.txt", "names camera 42");
}

TEST(ColmapModel, MalformedTextFilesNameTheLine) {
    TempDir dir;
    write_colmap_model(sample_model(), dir.path().string(), false);
    write_text(dir / "cameras.txt", "# comment\n1 OPENCV 64 48 60 58 32\n");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "cameras.txt",
                         "takes 8 parameters, got 3");
    write_text(dir / "cameras.txt", "1 NO_SUCH_MODEL 64 48 1 2 3\n");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "cameras.txt",
                         "line 1: unknown camera model");
    write_text(
        dir / "cameras.txt",
        "1 PINHOLE 64 48 60 60 32 24\n2 PINHOLE 64 48 60 60 32 24\n1 PINHOLE 64 48 60 60 32 24\n");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "cameras.txt",
                         "camera id 1 appears twice");
    write_text(dir / "cameras.txt", "1 PINHOLE 64 48 60 60 32 24\n");
    write_text(dir / "images.txt", "10 1 0 0 0 0 0 zero 1 a.png\n\n");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "images.txt",
                         "line 1: expected TX TY TZ");
    write_text(dir / "images.txt", "10 0 0 0 0 0 0 0 1 a.png\n\n");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), "images.txt",
                         "zero rotation quaternion");
    std::filesystem::remove(dir / "images.txt");
    std::filesystem::remove(dir / "images.bin");
    EXPECT_RADIANT_ERROR(read_colmap_model(dir.path().string()), dir.path().string(),
                         "no images.bin or images.txt");
}

TEST(ColmapModel, IntrinsicsOfEachModel) {
    auto cam = [](int model, std::vector<double> params) {
        ColmapCamera c;
        c.id = 3;
        c.model_id = model;
        c.width = 100;
        c.height = 80;
        c.params = std::move(params);
        return colmap_intrinsics(c, "m");
    };
    CameraIntrinsics c = cam(0, {50, 49.5, 40.5});
    EXPECT_FLOAT_EQ(c.fl_x, 50);
    EXPECT_FLOAT_EQ(c.fl_y, 50);
    EXPECT_FLOAT_EQ(c.cx, 49.5);
    EXPECT_FLOAT_EQ(c.cy, 40.5);
    c = cam(2, {50, 49.5, 40.5, 0.1});
    EXPECT_FLOAT_EQ(c.k1, 0.1f);
    c = cam(3, {50, 49.5, 40.5, 0.1, -0.2});
    EXPECT_FLOAT_EQ(c.k2, -0.2f);
    c = cam(4, {50, 51, 49, 41, 0.1, -0.2, 0.01, -0.02});
    EXPECT_FLOAT_EQ(c.fl_y, 51);
    EXPECT_FLOAT_EQ(c.p1, 0.01f);
    EXPECT_FLOAT_EQ(c.p2, -0.02f);
    EXPECT_FALSE(c.fisheye);
    c = cam(5, {50, 51, 49, 41, 0.1, -0.2, 0.03, -0.04});
    EXPECT_TRUE(c.fisheye);
    EXPECT_FLOAT_EQ(c.k3, 0.03f);
    EXPECT_FLOAT_EQ(c.k4, -0.04f);
    c = cam(6, {50, 51, 49, 41, 0.1, -0.2, 0.01, -0.02, 0.05, 0, 0, 0});
    EXPECT_FLOAT_EQ(c.k3, 0.05f);
    c = cam(9, {50, 49, 41, 0.1, -0.2});
    EXPECT_TRUE(c.fisheye);
    EXPECT_FLOAT_EQ(c.k2, -0.2f);
    EXPECT_RADIANT_ERROR(cam(7, {50, 51, 49, 41, 0.9}), "m", "FOV model");
    EXPECT_RADIANT_ERROR(cam(6, {50, 51, 49, 41, 0.1, -0.2, 0.01, -0.02, 0.05, 0.1, 0, 0}), "m",
                         "FULL_OPENCV");
}

TEST(ColmapModel, CameraToWorldInvertsThePose) {
    const Mat3d r = test::look_at_rotation({3, 4, 5}, {0, 0, 0}, {0, 0, 1});
    const ColmapImage im = test::colmap_image(1, 1, "a", r, {3, 4, 5});
    Mat3d back;
    Vec3d centre;
    colmap_camera_to_world(im, back, centre);
    EXPECT_LT(rotation_angle_degrees(back, r), 1e-6);
    EXPECT_NEAR(norm(centre - Vec3d{3, 4, 5}), 0, 1e-9);
    // COLMAP's camera looks down +z: the world origin is in front of it, on its axis.
    const Mat3d w2c = quaternion_to_rotation(im.qvec[0], im.qvec[1], im.qvec[2], im.qvec[3]);
    const Vec3d origin_cam = w2c * Vec3d{0, 0, 0} + Vec3d{im.tvec[0], im.tvec[1], im.tvec[2]};
    EXPECT_NEAR(origin_cam.x, 0, 1e-9);
    EXPECT_NEAR(origin_cam.y, 0, 1e-9);
    EXPECT_NEAR(origin_cam.z, std::sqrt(50.0), 1e-9);
}

}  // namespace
}  // namespace radiant

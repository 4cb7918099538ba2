// `radiant prepare` end to end: COLMAP-model conversion, staging, the report files, every
// bad input (one line, exit 2, no transforms.json), and missing colmap / ffmpeg.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "colmap_test_util.h"
#include "core/rng.h"
#include "io/image.h"
#include "io/transforms.h"
#include "prepare/pose_compare.h"
#include "test_util.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;
using test::expect_bad_input;
using test::run_radiant;
using test::TempDir;
using test::write_text;

void write_noise_png(const std::string& path, int w, int h, uint64_t seed) {
    ImageF im(w, h, 3);
    Pcg32 rng(seed, 0);
    for (float& v : im.pixels) v = rng.next_float();
    save_png(path, im);
}

// INPUT/images/*.png and INPUT/sparse/0 (text) of a known capture; returns the truth.
test::KnownCapture write_model_input(const std::string& input, int n = 6) {
    test::KnownCapture cap = test::known_capture(n, {0.5, -1, 2}, 5.0, {0, 0, 1}, 30, 1.0);
    fs::create_directories(fs::path(input) / "images");
    fs::create_directories(fs::path(input) / "sparse" / "0");
    for (size_t i = 0; i < cap.model.images.size(); ++i)
        write_noise_png((fs::path(input) / "images" / cap.model.images[i].name).string(), 64, 48,
                        i);
    write_colmap_model(cap.model, (fs::path(input) / "sparse" / "0").string(), false);
    return cap;
}

Dataset truth_of(const test::KnownCapture& cap) {
    Dataset truth;
    for (size_t i = 0; i < cap.rotations.size(); ++i) {
        Frame f;
        f.image_path = cap.model.images[i].name;
        for (int r = 0; r < 3; ++r) {
            for (int c = 0; c < 3; ++c)
                f.camera_to_world[size_t(r * 4 + c)] = float(cap.rotations[i](r, c));
            f.camera_to_world[size_t(r * 4 + 3)] = float(cap.centres[i][r]);
        }
        truth.frames.push_back(f);
    }
    return truth;
}

TEST(CliPrepare, ConvertsAColmapModelIntoATrainableScene) {
    TempDir dir;
    const test::KnownCapture cap = write_model_input(dir / "capture");
    write_noise_png(dir / "capture/images/extra_unposed.png", 64, 48, 99);  // not in the model
    const std::string scene = dir / "scene";
    test::RunResult r = run_radiant(dir, "prepare " + (dir / "capture") + " --out " + scene +
                                             " --report " + (dir / "prep.json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("registered 6 of 6 images"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("extra_unposed.png"), std::string::npos) << r.out;
    EXPECT_EQ(read_file(scene + "/unregistered.txt"), "extra_unposed.png\n");
    for (const char* f : {"cameras.txt", "images.txt", "points3D.txt"})
        EXPECT_TRUE(fs::exists(scene + "/colmap/sparse/0/" + f)) << f;
    // The images are staged (hard links where possible) and the transforms point at them.
    const Dataset ds = load_transforms(scene);
    ASSERT_EQ(ds.frames.size(), 6u);
    for (const Frame& f : ds.frames) {
        EXPECT_EQ(fs::path(f.image_path).parent_path(), fs::path(scene) / "images");
        EXPECT_GT(f.sharpness, 0.0f);
    }
    EXPECT_TRUE(fs::equivalent(scene + "/images/" + cap.model.images[0].name,
                               dir / ("capture/images/" + cap.model.images[0].name)));
    const PoseComparison c = compare_poses(ds, truth_of(cap));
    EXPECT_EQ(c.matched, 6u);
    EXPECT_LT(c.max_rotation_error_deg, 1e-3);
    EXPECT_LT(c.max_centre_error, 1e-5);
    const nlohmann::json report = nlohmann::json::parse(read_file(dir / "prep.json"));
    EXPECT_EQ(report["registered"], 6);
    EXPECT_EQ(report["input_kind"], "colmap");
    EXPECT_EQ(report["unregistered"][0], "extra_unposed.png");
    // `radiant train SCENE` takes it with its defaults (here only a few steps).
    r = run_radiant(dir, "train " + scene + " --steps 3 --target-samples 4096 --snapshot " +
                             (dir / "s.radiant"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // Again into the same folder: refused, then replaced with --force.
    expect_bad_input(dir, "prepare " + (dir / "capture") + " --out " + scene,
                     "--out folder is not empty");
    r = run_radiant(dir, "prepare " + (dir / "capture") + " --out " + scene + " --force");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(scene + "/transforms.json"));
    // --force never deletes its own input.
    expect_bad_input(dir, "prepare " + scene + "/images --out " + scene + " --force",
                     "would delete the input");
}

TEST(CliPrepare, ModelProblemsAreNamed) {
    TempDir dir;
    test::KnownCapture cap = write_model_input(dir / "capture");
    fs::remove(dir / ("capture/images/" + cap.model.images[2].name));
    expect_bad_input(dir, "prepare " + (dir / "capture") + " --out " + (dir / "s1"),
                     "is missing from");
    EXPECT_FALSE(fs::exists(dir / "s1"));
    cap.model.images[1].camera_id = 42;
    write_colmap_model(cap.model, dir / "capture/sparse/0", false);
    expect_bad_input(dir, "prepare " + (dir / "capture") + " --out " + (dir / "s2"),
                     "names camera 42");
    EXPECT_FALSE(fs::exists(dir / "s2"));
}

TEST(CliPrepare, BadPhotoFoldersAreRefusedBeforeAnythingIsWritten) {
    TempDir dir;
    const std::string out = dir / "scene";
    expect_bad_input(dir, "prepare " + (dir / "nope") + " --out " + out, "no such file or folder");
    fs::create_directories(dir / "empty");
    write_text(dir / "empty/notes.txt", "not a photo");
    expect_bad_input(dir, "prepare " + (dir / "empty") + " --out " + out,
                     "holds no JPEG or PNG photos");
    fs::create_directories(dir / "two");
    write_noise_png(dir / "two/a.png", 32, 32, 1);
    write_noise_png(dir / "two/b.png", 32, 32, 2);
    expect_bad_input(dir, "prepare " + (dir / "two") + " --out " + out, "holds only 2 photos");
    write_text(dir / "two/c.jpg", "\xff\xd8\xff garbage");
    const test::RunResult r = run_radiant(dir, "prepare " + (dir / "two") + " --out " + out);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("warning: skipping " + (dir / "two/c.jpg")), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("only 2 readable photos"), std::string::npos) << r.err;
    write_text(dir / "notes.txt", "x");
    expect_bad_input(dir, "prepare " + (dir / "notes.txt") + " --out " + out,
                     "is neither a folder of photos");
    EXPECT_FALSE(fs::exists(out));
    // --out problems are found before the photos are even read.
    fs::create_directories(out);
    write_text(out + "/keep.txt", "x");
    expect_bad_input(dir, "prepare " + (dir / "two") + " --out " + out + " --resume",
                     "holds no interrupted prepare");
    expect_bad_input(dir, "prepare " + (dir / "two") + " --out " + (dir / "notes.txt") + " --force",
                     "--out names a file");
    EXPECT_EQ(read_file(out + "/keep.txt"), "x");
}

TEST(CliPrepare, MissingColmapOrFfmpegNamesThePackage) {
    TempDir dir;
    fs::create_directories(dir / "photos");
    for (int i = 0; i < 3; ++i)
        write_noise_png(dir / ("photos/" + std::to_string(i) + ".png"), 32, 32, uint64_t(i));
    expect_bad_input(dir, "prepare " + (dir / "photos") + " --out " + (dir / "scene"),
                     "install Debian's colmap package", "PATH=/nonexistent");
    EXPECT_FALSE(fs::exists(dir / "scene"));
    write_text(dir / "clip.mp4", "not a video");
    expect_bad_input(dir, "prepare " + (dir / "clip.mp4") + " --out " + (dir / "scene"),
                     "ffmpeg package", "PATH=/nonexistent");
    EXPECT_FALSE(fs::exists(dir / "scene"));
}

TEST(CliPrepare, UnreadableVideoIsRefused) {
    if (std::system("command -v ffprobe > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "ffmpeg is not installed; skipping";
    TempDir dir;
    write_text(dir / "clip.mp4", "not a video at all");
    expect_bad_input(dir, "prepare " + (dir / "clip.mp4") + " --out " + (dir / "scene"),
                     "ffmpeg cannot read this video");
    EXPECT_FALSE(fs::exists(dir / "scene"));
}

}  // namespace
}  // namespace radiant

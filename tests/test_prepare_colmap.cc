// `radiant prepare` with the real COLMAP (and ffmpeg): the built-in demo scene's photos (first
// interrupted with Ctrl-C while matching, then resumed), and
// a video of them, give back the true poses up to a similarity. Skipped where colmap is absent.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_test_util.h"
#include "core/rng.h"
#include "demo/demo_scene.h"
#include "io/image.h"
#include "io/transforms.h"
#include "prepare/pose_compare.h"
#include "test_util.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;
using test::run_radiant;
using test::TempDir;

bool have(const char* program) {
    return std::system((std::string("command -v ") + program + " > /dev/null 2>&1").c_str()) == 0;
}

TEST(PrepareColmap, DemoPhotosInterruptedResumedRecoverTheTruePoses) {
    if (!have("colmap"))
        GTEST_SKIP() << "colmap is not installed (bash scripts/setup.sh installs it); skipping";
    TempDir dir;
    DemoSceneOptions o;
    o.width = o.height = 400;  // SIFT needs a few hundred pixels across the objects
    o.train_views = 30;
    o.test_views = 1;
    o.supersampling = 2;
    o.feature_texture = true;
    const DemoScene demo = write_demo_scene(dir / "demo", o);
    const std::string scene = dir / "scene";
    // Ctrl-C while COLMAP matches: exit 130, no transforms.json, COLMAP's database kept.
    const std::string err = dir / "interrupted.txt";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const std::string cmd = "exec " + std::string(RADIANT_BINARY) + " prepare " +
                                (dir / "demo/train") + " --out " + scene + " > /dev/null 2> " + err;
        execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
        _exit(127);
    }
    for (int i = 0; i < 3000; ++i) {  // until matching starts (at most 5 minutes)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (fs::exists(err) && read_file(err).find("\nmatching ") != std::string::npos)
            break;  // its progress line
    }
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << read_file(err);
    EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(err);
    EXPECT_NE(read_file(err).find("--resume"), std::string::npos) << read_file(err);
    EXPECT_FALSE(fs::exists(scene + "/transforms.json"));
    EXPECT_TRUE(fs::exists(scene + "/colmap/database.db"));
    // --resume finishes the job (COLMAP skips the features it already has).
    const test::RunResult r =
        run_radiant(dir, "prepare " + (dir / "demo/train") + " --out " + scene +
                             " --resume --report " + (dir / "prep.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::printf("%s", r.out.c_str());
    const Dataset prepared = load_transforms(scene);
    const PoseComparison c = compare_poses(prepared, load_transforms(demo.train_json));
    std::printf(
        "demo: %zu of 30 registered; rotation error mean %.3f max %.3f deg; centre error mean "
        "%.3f%% max %.3f%%\n",
        c.matched, c.mean_rotation_error_deg, c.max_rotation_error_deg, 100 * c.mean_centre_error,
        100 * c.max_centre_error);
    EXPECT_GE(c.matched, 27u);
    EXPECT_LT(c.mean_rotation_error_deg, 1.0);
    EXPECT_LT(c.mean_centre_error, 0.02);
}

TEST(PrepareColmap, VideoOfAnOrbitRegistersItsFrames) {
    if (!have("colmap") || !have("ffmpeg"))
        GTEST_SKIP() << "colmap or ffmpeg is not installed; skipping";
    TempDir dir;
    DemoSceneOptions o;
    o.width = o.height = 400;
    o.train_views = 40;
    o.test_views = 1;
    o.supersampling = 2;
    o.feature_texture = true;
    o.orbit_path = true;
    const DemoScene demo = write_demo_scene(dir / "demo", o);
    // 40 views shown at 10 per second in a 30 fps video: each view lasts 3 frames.
    const std::string video = dir / "orbit.mp4";
    const std::string cmd = "ffmpeg -v error -nostdin -framerate 10 -i " +
                            (dir / "demo/train/r_%d.png") +
                            " -r 30 -c:v libx264 -crf 16 -pix_fmt yuv420p " + video;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    // 20 frames a second asked for: every other kept frame repeats a view, and is dropped.
    const test::RunResult r =
        run_radiant(dir, "prepare " + video + " --fps 20 --out " + (dir / "scene") + " --report " +
                             (dir / "prep.json"));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::printf("%s", r.out.c_str());
    const nlohmann::json report = nlohmann::json::parse(read_file(dir / "prep.json"));
    const size_t kept = report["images"], registered = report["registered"];
    std::printf(
        "video: %zu candidate frames, %zu near-duplicates dropped, %zu kept, %zu registered\n",
        report["video_candidate_frames"].get<size_t>(),
        report["video_duplicates_dropped"].get<size_t>(), kept, registered);
    EXPECT_GE(kept, 36u);
    EXPECT_LE(kept, 44u);
    EXPECT_GE(report["video_duplicates_dropped"].get<size_t>(), 30u);
    EXPECT_GE(double(registered), 0.9 * double(kept));
}

TEST(PrepareColmap, PhotosWithNothingInCommonAreRefused) {
    if (!have("colmap")) GTEST_SKIP() << "colmap is not installed; skipping";
    TempDir dir;
    fs::create_directories(dir / "noise");
    for (int i = 0; i < 3; ++i) {  // plenty of SIFT features, none shared
        ImageF im(160, 120, 3);
        Pcg32 rng(uint64_t(i) + 5, 0);
        for (float& v : im.pixels) v = rng.next_float();
        save_png(dir / ("noise/" + std::to_string(i) + ".png"), im);
    }
    test::expect_bad_input(dir, "prepare " + (dir / "noise") + " --out " + (dir / "scene"),
                           "could not place any images");
    EXPECT_FALSE(fs::exists(dir / "scene/transforms.json"));
    EXPECT_TRUE(
        fs::exists(dir / "scene/colmap/colmap.log"));  // what COLMAP said, for the user to read
}

}  // namespace
}  // namespace radiant

// End-to-end checks of `radiant train / eval / render / demo`: results, resume, signals,
// divergence, and bad input (one line, exit 2, no partial files).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_test_util.h"
#include "core/system.h"
#include "demo/demo_scene.h"
#include "io/image.h"
#include "io/snapshot.h"
#include "nn/amx.h"
#include "small_demo_scene.h"
#include "test_util.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;

using test::expect_bad_input;
using test::RunResult;

RunResult run(const test::TempDir& dir, const std::string& args) {
    return test::run_radiant(dir, args);
}

// A tiny scene and fast training options shared by the tests.
struct Scene {
    test::TempDir dir;
    DemoScene scene;
    Scene() : scene(test::write_tiny_demo_scene(dir / "scene")) {}
    std::string train_args(const std::string& snapshot) const {
        // fp32 MLPs on any CPU (auto picks bf16 on AMX or AVX512-BF16), so eval --precision fp32
        // reproduces training's validation.
        return "train " + scene.train_json +
               " --log2-table 14 --target-samples 4096 --threads 2 --seed 9 --precision fp32 "
               "--snapshot " +
               snapshot;
    }
};

std::string params_block(const std::string& path) {
    SnapshotFile f = SnapshotFile::read(path);
    for (const auto& b : f.header()["blocks"])
        if (b["name"] == "params") {
            auto bytes = f.block("params", b["bytes"].get<size_t>());
            return std::string(bytes.begin(), bytes.end());
        }
    return {};
}

TEST(CliNerf, TrainEvalRenderAndReports) {
    Scene s;
    const std::string snap = s.dir / "m.radiant", report = s.dir / "train.json";
    RunResult r = run(s.dir, s.train_args(snap) + " --steps 60 --val " + s.scene.test_json +
                                 " --report " + report);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("snapshot: " + snap), std::string::npos) << r.out;
    const auto rep = nlohmann::json::parse(read_file(report));
    EXPECT_EQ(rep["command"], "train");
    EXPECT_EQ(rep["steps"], 60);
    EXPECT_GT(rep["samples_per_second"].get<double>(), 0.0);
    EXPECT_GT(rep["psnr"].get<double>(), 10.0);
    EXPECT_FALSE(rep["history"].empty());

    const std::string eval_report = s.dir / "eval.json";
    r = run(s.dir, "eval " + snap + " " + s.scene.test_json + " --out-dir " + (s.dir / "renders") +
                       " --report " + eval_report + " --precision fp32");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("PSNR"), std::string::npos);
    const auto ev = nlohmann::json::parse(read_file(eval_report));
    EXPECT_GT(ev["psnr"].get<double>(), 10.0);
    EXPECT_GT(ev["ssim"].get<double>(), 0.0);
    EXPECT_LE(ev["ssim"].get<double>(), 1.0);
    EXPECT_EQ(ev["views"].size(), 2u);
    EXPECT_TRUE(fs::exists(s.dir / "renders/r_0.png"));
    // Same background and precision as training's validation: eval reproduces the report's PSNR.
    EXPECT_EQ(ev["mlp_precision"], "fp32");
    EXPECT_NEAR(ev["psnr"].get<double>(), rep["psnr"].get<double>(), 1e-6);
    // The default renders with bf16 products where the CPU has them, a hair from fp32.
    const std::string auto_report = s.dir / "eval_auto.json";
    r = run(s.dir, "eval " + snap + " " + s.scene.test_json + " --report " + auto_report);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto ev_auto = nlohmann::json::parse(read_file(auto_report));
    EXPECT_EQ(ev_auto["mlp_precision"], amx::available() ? "bf16" : "fp32");
    EXPECT_NEAR(ev_auto["psnr"].get<double>(), ev["psnr"].get<double>(), 0.05);

    r = run(s.dir, "render " + snap + " --orbit 3 --width 40 --out-dir " + (s.dir / "orbit"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (int i = 0; i < 3; ++i) {
        const ImageSize size =
            read_image_size(s.dir / ("orbit/frame_000" + std::to_string(i) + ".png"));
        EXPECT_EQ(size.width, 40);
        EXPECT_EQ(size.height, 40);
    }
    r = run(s.dir, "render " + snap + " --transforms " + s.scene.test_json + " --out-dir " +
                       (s.dir / "views"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_image_size(s.dir / "views/frame_0001.png").width, 32);
}

// --encoding reshapes a new model's grid; the snapshot carries the shape, so eval rebuilds it.
TEST(CliNerf, EightByFourEncodingTrainsAndReloads) {
    Scene s;
    const std::string snap = s.dir / "m.radiant", report = s.dir / "train.json";
    RunResult r = run(s.dir, s.train_args(snap) + " --steps 40 --encoding 8x4 --val " +
                                 s.scene.test_json + " --report " + report);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto rep = nlohmann::json::parse(read_file(report));
    EXPECT_EQ(rep["encoding"], "8x4");
    EXPECT_GT(rep["psnr"].get<double>(), 10.0);
    const std::string eval_report = s.dir / "eval.json";
    r = run(s.dir, "eval " + snap + " " + s.scene.test_json + " --report " + eval_report +
                       " --precision fp32");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(nlohmann::json::parse(read_file(eval_report))["psnr"].get<double>(),
                rep["psnr"].get<double>(), 1e-6);
    r = run(s.dir, s.train_args(s.dir / "x.radiant") + " --steps 5 --encoding 4x4");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--encoding: 4x4 not in"), std::string::npos) << r.err;
}
TEST(CliNerf, InterruptedThenResumedEqualsUninterrupted) {
    Scene s;
    const std::string straight = s.dir / "straight.radiant", staged = s.dir / "staged.radiant";
    ASSERT_EQ(run(s.dir, s.train_args(straight) + " --steps 50").exit_code, 0);
    RunResult r = run(s.dir, s.train_args(staged) + " --steps 50 --stop-at-step 21");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("stopped by --stop-at-step at step 21"), std::string::npos) << r.err;
    EXPECT_NE(params_block(staged), params_block(straight));
    r = run(s.dir, s.train_args(staged) + " --steps 50 --resume");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("resuming at step 21"), std::string::npos) << r.err;
    EXPECT_EQ(params_block(staged), params_block(straight));
}

// --space unbounded: the snapshot carries the contraction and the far sample (eval rebuilds
// the same model and scores what training's validation scored), and an interrupted run resumes
// bit for bit; a bounded run's header has neither key.
TEST(CliNerf, UnboundedSpaceRoundTripsAndResumesExactly) {
    Scene s;
    const std::string straight = s.dir / "straight.radiant", staged = s.dir / "staged.radiant";
    const std::string report = s.dir / "train.json", args = " --steps 30 --space unbounded";
    RunResult r = run(s.dir, s.train_args(straight) + args + " --val " + s.scene.test_json +
                                 " --report " + report);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("space: unbounded, contracted beyond"), std::string::npos) << r.err;
    const nlohmann::json model = SnapshotFile::read(straight).header()["model"];
    EXPECT_GE(model["field"]["contraction_radius"].get<float>(), 0.5f);
    EXPECT_TRUE(model["march"]["far_sample"].get<bool>());
    const std::string eval_report = s.dir / "eval.json";
    r = run(s.dir, "eval " + straight + " " + s.scene.test_json + " --report " + eval_report +
                       " --precision fp32");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NEAR(nlohmann::json::parse(read_file(eval_report))["psnr"].get<double>(),
                nlohmann::json::parse(read_file(report))["psnr"].get<double>(), 1e-6);
    r = run(s.dir, s.train_args(staged) + args + " --stop-at-step 13");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run(s.dir, s.train_args(staged) + args + " --resume");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(params_block(staged), params_block(straight));

    const std::string bounded = s.dir / "bounded.radiant";
    ASSERT_EQ(run(s.dir, s.train_args(bounded) + " --steps 2").exit_code, 0);
    const nlohmann::json box = SnapshotFile::read(bounded).header()["model"];
    EXPECT_FALSE(box["field"].contains("contraction_radius"));
    EXPECT_FALSE(box["march"].contains("far_sample"));
}

TEST(CliNerf, CtrlCSavesASnapshotAndExitsCleanly) {
    Scene s;
    const std::string snap = s.dir / "int.radiant", err = s.dir / "err.txt";
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const std::string cmd = "exec " + std::string(RADIANT_BINARY) + " " + s.train_args(snap) +
                                " --steps 1000000 --checkpoint-every 0 > /dev/null 2> " + err;
        execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
        _exit(127);
    }
    // Wait for training to start (the progress line), then press Ctrl-C.
    for (int i = 0; i < 600; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::string text;
        try {
            text = read_file(err);
        } catch (...) {
        }
        if (text.find("train ") != std::string::npos && text.find("step") != std::string::npos)
            break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed instead of exiting cleanly";
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_NE(read_file(err).find("stopped by Ctrl-C"), std::string::npos) << read_file(err);
    SnapshotFile f = SnapshotFile::read(snap);
    EXPECT_GT(f.header()["training"]["step"].get<int>(), 0);
}

TEST(CliNerf, DivergenceStopsWithTheLastGoodSnapshot) {
    Scene s;
    const std::string snap = s.dir / "div.radiant";
    RunResult r = run(s.dir, s.train_args(snap) + " --steps 200 --lr 1e30 --checkpoint-every 1");
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("non-finite loss at step"), std::string::npos) << r.err;
    if (fs::exists(snap)) {  // whatever was saved is complete and finite
        RunResult e = run(s.dir, "eval " + snap + " " + s.scene.test_json);
        EXPECT_EQ(e.exit_code, 0) << e.err;
    }
}

TEST(CliNerf, RejectsBadInput) {
    Scene s;
    const std::string snap = s.dir / "ok.radiant";
    ASSERT_EQ(run(s.dir, s.train_args(snap) + " --steps 3").exit_code, 0);
    const std::string bytes = read_file(snap);
    test::write_text(s.dir / "cut.radiant", bytes.substr(0, bytes.size() / 2));
    std::string flipped = bytes;
    flipped[bytes.size() / 2] ^= 0x40;
    test::write_text(s.dir / "flip.radiant", flipped);
    std::string newer = bytes;
    newer[8] = 9;
    test::write_text(s.dir / "newer.radiant", newer);
    const std::string test_json = s.scene.test_json;

    expect_bad_input(s.dir, "eval " + (s.dir / "cut.radiant") + " " + test_json,
                     "cut.radiant: truncated snapshot");
    expect_bad_input(s.dir, "eval " + (s.dir / "flip.radiant") + " " + test_json,
                     "flip.radiant: snapshot checksum mismatch");
    expect_bad_input(s.dir, "eval " + (s.dir / "newer.radiant") + " " + test_json,
                     "newer than this build reads");
    expect_bad_input(s.dir, "render " + (s.dir / "cut.radiant") + " --orbit 2",
                     "truncated snapshot");
    expect_bad_input(s.dir, "eval " + snap + " " + test_json + " --background pink",
                     "--background");
    for (const std::string& bad : {"eval " + snap + " " + test_json + " --precision fp16",
                                   "render " + snap + " --orbit 2 --precision half"}) {
        const RunResult b = run(s.dir, bad);
        EXPECT_EQ(b.exit_code, 2) << bad;  // a usage error, from the option's check
        EXPECT_NE(b.err.find("--precision: "), std::string::npos) << b.err;
    }
    expect_bad_input(s.dir, "eval " + snap + " " + (s.dir / "nothing.json"), "nothing.json");
    expect_bad_input(s.dir, s.train_args(s.dir / "none.radiant") + " --steps 5 --resume",
                     "none.radiant: --resume: there is no snapshot to resume from");
    expect_bad_input(s.dir, s.train_args(s.dir / "cut.radiant") + " --steps 5 --resume",
                     "cut.radiant: truncated snapshot");
    EXPECT_EQ(read_file(s.dir / "cut.radiant"),
              bytes.substr(0, bytes.size() / 2));  // left as it was
    expect_bad_input(s.dir, s.train_args(s.dir / "nofolder/x.radiant") + " --steps 5",
                     "does not exist");
    expect_bad_input(s.dir, "train " + (s.dir / "missing") + " --steps 5", "missing");
    // An empty orbit, and no frames folder is made.
    expect_bad_input(s.dir, "render " + snap + " --orbit 0 --out-dir " + (s.dir / "empty"),
                     "at least 1 frame");
    EXPECT_FALSE(fs::exists(s.dir / "empty"));
    // Eval views whose images disagree with the size their json declares.
    nlohmann::json j = nlohmann::json::parse(read_file(test_json));
    j["w"] = 64;
    j["h"] = 64;
    j["fl_x"] = j["fl_y"] = 50.0;
    const std::string sized = s.dir / "scene/transforms_sized.json";
    test::write_text(sized, j.dump());
    expect_bad_input(s.dir, "eval " + snap + " " + sized + " --out-dir " + (s.dir / "never"),
                     "r_0.png");
    EXPECT_FALSE(fs::exists(s.dir / "never"));
    // None of the failures left a snapshot or a temporary file behind.
    for (auto& e : fs::directory_iterator(s.dir.path()))
        EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
    EXPECT_FALSE(fs::exists(s.dir / "none.radiant"));
}

TEST(CliNerf, DemoRunsEndToEnd) {
    test::TempDir dir;
    const std::string report = dir / "demo.json";
    RunResult r =
        run(dir, "demo --steps 300 --orbit 2 --out-dir " + (dir / "demo") + " --report " + report);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("test PSNR"), std::string::npos) << r.out;
    const auto rep = nlohmann::json::parse(read_file(report));
    std::printf("[ demo ] 300 steps: test PSNR %.2f dB\n", rep["psnr"].get<double>());
    EXPECT_GT(rep["psnr"].get<double>(), 22.0);
    EXPECT_TRUE(fs::exists(dir / "demo/orbit/frame_0001.png"));
    EXPECT_TRUE(fs::exists(dir / "demo/test-renders/r_0.png"));
}

}  // namespace
}  // namespace radiant

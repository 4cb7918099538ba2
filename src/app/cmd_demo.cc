// `radiant demo`: the whole product on a scene we make ourselves (no data to download):
// write the demo dataset, train, score the held-out views, render an orbit.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "app/cli_util.h"
#include "app/commands.h"
#include "app/jobs.h"
#include "core/report.h"
#include "core/system.h"
#include "core/timer.h"
#include "demo/demo_scene.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

struct DemoOptions {
    std::string out_dir = "radiant-demo";
    uint64_t steps = 1000;
    int orbit = 48;
    int threads = 0;
    uint64_t seed = 1337;
    std::string report;
};

int run_demo(const DemoOptions& o) {
    check_output_path(o.report, "--report");
    make_output_dir(o.out_dir, "--out-dir");
    const fs::path root(o.out_dir);
    Timer total;

    std::printf("[1/4] writing the demo scene (analytic objects, rendered exactly)\n");
    std::fflush(stdout);
    DemoSceneOptions scene_options;
    const DemoScene scene = write_demo_scene((root / "scene").string(), scene_options);

    std::printf("[2/4] training %llu steps\n", static_cast<unsigned long long>(o.steps));
    std::fflush(stdout);
    TrainOptions t;
    t.scene = scene.train_json;
    t.steps = o.steps;
    t.snapshot = (root / "demo.radiant").string();
    t.checkpoint_every = 0;
    t.threads = o.threads;
    t.seed = o.seed;
    t.log2_table = 16;  // a small scene: a small table trains faster at the same quality
    t.target_samples = size_t(1) << 15;
    t.report = (root / "train-report.json").string();
    const TrainResult trained = run_train(t);
    if (trained.exit_code != 0) return trained.exit_code;

    std::printf("[3/4] scoring the %d held-out test views\n", scene_options.test_views);
    std::fflush(stdout);
    EvalOptions e;
    e.snapshot = trained.snapshot;
    e.transforms = scene.test_json;
    e.out_dir = (root / "test-renders").string();
    e.report = (root / "eval-report.json").string();
    e.threads = o.threads;
    const EvalResult scored = run_eval(e);

    std::printf("[4/4] rendering a %d-frame orbit\n", o.orbit);
    std::fflush(stdout);
    RenderOptions r;
    r.snapshot = trained.snapshot;
    r.orbit = o.orbit;
    r.out_dir = (root / "orbit").string();
    r.threads = o.threads;
    const RenderResult orbit = run_render(r);

    if (!o.report.empty()) {
        Report report;
        report.command = "demo";
        report.psnr = scored.psnr;
        report.ssim = scored.ssim;
        report.steps = trained.steps;
        report.seconds = trained.seconds;
        report.peak_rss_mb = peak_rss_mb();
        report.extra = {{"total_seconds", total.seconds()}, {"snapshot", trained.snapshot}};
        report.write(o.report);
    }
    std::printf("\nRadiant demo finished in %.0f s\n", total.seconds());
    std::printf("  scene       %s (%d training + %d test views, %dx%d)\n", scene.folder.c_str(),
                scene_options.train_views, scene_options.test_views, scene_options.width,
                scene_options.height);
    std::printf("  snapshot    %s (%llu steps, %.1f s of training)\n", trained.snapshot.c_str(),
                static_cast<unsigned long long>(trained.steps), trained.seconds);
    std::printf("  test PSNR   %.2f dB, SSIM %.4f on %zu held-out views (white background)\n",
                scored.psnr, scored.ssim, scored.views);
    std::printf("  renders     %s\n", e.out_dir.c_str());
    std::printf("  orbit       %s%s\n", r.out_dir.c_str(),
                orbit.video.empty() ? "" : (" and " + orbit.video).c_str());
    std::printf("  reports     %s, %s\n", t.report.c_str(), e.report.c_str());
    return 0;
}

}  // namespace

Command add_demo_command(CLI::App& app) {
    auto o = std::make_shared<DemoOptions>();
    CLI::App* cmd = app.add_subcommand(
        "demo",
        "No data needed: write a small built-in scene, train on it, score held-out views and "
        "render an orbit; prints where everything went.");
    cmd->add_option("--out-dir", o->out_dir, "folder for the scene, snapshot, renders and reports")
        ->capture_default_str();
    cmd->add_option("--steps", o->steps, "training steps")
        ->check(CLI::Range(uint64_t(1), uint64_t(1000000)))
        ->capture_default_str();
    cmd->add_option("--orbit", o->orbit, "frames of the orbit video")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--seed", o->seed, "random seed")->capture_default_str();
    cmd->add_option("--report", o->report, "write a JSON report (DESIGN §1) to this path");
    return {cmd, [o] { return run_demo(*o); }};
}

}  // namespace radiant

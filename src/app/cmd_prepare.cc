// `radiant prepare INPUT --out SCENE`: photos, a video or a COLMAP model -> a posed scene.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <filesystem>

#include "app/cli_util.h"
#include "app/commands.h"
#include "core/error.h"
#include "prepare/prepare.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

void print_summary(const PrepareOptions& o, const PrepareResult& r) {
    std::string stages;
    for (const auto& s : r.stages)
        stages += fmt::format("{}{} {:.1f} s", stages.empty() ? "" : ", ", s.name, s.seconds);
    const double share = r.images ? double(r.registered) / double(r.images) : 0.0;
    std::printf(
        "registered %zu of %zu images (%.0f%%), mean reprojection error %.2f px, %zu sparse "
        "points%s\n",
        r.registered, r.images, 100.0 * share, r.mean_reprojection_error, r.points,
        r.models > 1 ? fmt::format(", largest of {} separate models", r.models).c_str() : "");
    if (!stages.empty()) std::printf("time: %s (%.1f s in all)\n", stages.c_str(), r.seconds);
    if (!r.unregistered.empty()) {
        std::string names;
        for (size_t i = 0; i < r.unregistered.size() && i < 10; ++i)
            names += (i ? ", " : "") + r.unregistered[i];
        if (r.unregistered.size() > 10)
            names += fmt::format(" and {} more", r.unregistered.size() - 10);
        std::printf("not registered: %s (listed in %s)\n", names.c_str(),
                    (fs::path(o.out) / "unregistered.txt").c_str());
    }
    if (share < kRegistrationWarning && r.input_kind != "colmap") {
        std::fprintf(
            stderr,
            "prepare: warning: only %.0f%% of the images were registered. Try %s; photos with more "
            "overlap "
            "(each spot seen from 3 or more of them); sharper photos (no motion blur)%s.\n",
            100.0 * share,
            r.input_kind == "video" ? "--matcher exhaustive (slower, matches every pair of frames)"
                                    : "a larger --max-image-size or --max-features",
            r.input_kind == "video" ? "; a slower camera move" : "");
    }
    std::printf("scene: %s (aabb_scale %g)\n", r.transforms.c_str(), r.aabb_scale);
    if (!o.report.empty()) std::printf("report: %s\n", o.report.c_str());
    std::printf("next: radiant train %s\n", o.out.c_str());
}

}  // namespace

Command add_prepare_command(CLI::App& app) {
    auto o = std::make_shared<PrepareOptions>();
    auto single = std::make_shared<bool>(false), per_image = std::make_shared<bool>(false);
    auto matcher = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand(
        "prepare",
        "Turn a folder of photos, a video, or an existing COLMAP model into a posed scene for "
        "`radiant train`: "
        "COLMAP (Debian's colmap, on the CPU) finds the camera poses, ffmpeg extracts video "
        "frames. Writes "
        "SCENE/transforms.json, SCENE/images/ and SCENE/colmap/ (database, model and log).");
    cmd->add_option("INPUT", o->input,
                    "folder of JPEG/PNG photos, a video file, or a folder holding a COLMAP model "
                    "(sparse/0 or sparse/ with cameras, images, points3D next to images/)")
        ->required();
    cmd->add_option("--out", o->out,
                    "scene folder to write (created; must be empty unless --force or --resume)")
        ->required();
    cmd->add_flag("--force", o->force, "replace what an earlier prepare wrote into --out");
    cmd->add_flag("--resume", o->resume,
                  "continue an interrupted prepare in --out (COLMAP keeps the work it had done)")
        ->excludes("--force");
    cmd->add_option("--matcher", *matcher,
                    "exhaustive (every pair; default for photos) or sequential (neighbouring "
                    "frames; default for video)")
        ->check(CLI::IsMember({"exhaustive", "sequential"}));
    cmd->add_option("--camera-model", o->colmap.camera_model, "COLMAP camera model")
        ->check(CLI::IsMember(
            {"SIMPLE_PINHOLE", "PINHOLE", "SIMPLE_RADIAL", "RADIAL", "OPENCV", "OPENCV_FISHEYE"}))
        ->capture_default_str();
    auto* sc = cmd->add_flag("--single-camera", *single,
                             "all images share one camera (default when they have one size)");
    cmd->add_flag("--camera-per-image", *per_image,
                  "estimate a camera for each image (zooming, mixed phones)")
        ->excludes(sc);
    cmd->add_option("--max-image-size", o->colmap.max_image_size,
                    "longest image side SIFT features are found at")
        ->check(CLI::Range(256, 8192))
        ->capture_default_str();
    cmd->add_option("--max-features", o->colmap.max_features, "SIFT features per image at most")
        ->check(CLI::Range(256, 65536))
        ->capture_default_str();
    cmd->add_option("--overlap", o->colmap.sequential_overlap,
                    "neighbours each frame is matched with (sequential)")
        ->check(CLI::Range(2, 1000))
        ->capture_default_str();
    auto* fps = cmd->add_option("--fps", o->video.fps, "video: frames kept per second")
                    ->check(CLI::Range(0.01, 240.0))
                    ->capture_default_str();
    cmd->add_option("--frames", o->video.frames,
                    "video: about this many frames over the whole video (instead of --fps)")
        ->check(CLI::Range(3, 100000))
        ->excludes(fps);
    cmd->add_option("--threads", o->threads,
                    "worker threads for COLMAP and image checks (0: all cores)")
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--report", o->report,
                    "write a JSON report (images, registered, reprojection error, stage times)");
    return {cmd, [o, single, per_image, matcher] {
                if (*single) o->single_camera = true;
                if (*per_image) o->single_camera = false;
                if (!matcher->empty()) o->matcher = *matcher;
                StopSignals signals;
                try {
                    const PrepareResult r =
                        run_prepare(*o, [] { return StopSignals::requested() != 0; });
                    print_summary(*o, r);
                } catch (const Interrupted& e) {
                    const int sig = StopSignals::requested() ? StopSignals::requested() : SIGINT;
                    std::fprintf(stderr,
                                 "\nprepare: %s; no transforms.json was written. Continue with: "
                                 "radiant prepare %s --out %s --resume\n",
                                 e.what(), o->input.c_str(), o->out.c_str());
                    return 128 + sig;
                }
                return 0;
            }};
}

}  // namespace radiant

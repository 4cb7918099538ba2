// `radiant eval SNAPSHOT TRANSFORMS`: render held-out views, PSNR and SSIM against them.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>

#include "app/cli_util.h"
#include "app/commands.h"
#include "app/jobs.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/report.h"
#include "core/system.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/metrics.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"

namespace radiant {

namespace fs = std::filesystem;

EvalResult run_eval(const EvalOptions& o) {
    check_output_path(o.report, "--report");
    const std::array<float, 3> bg = parse_background(o.background);
    LoadedModel loaded = load_model_snapshot(o.snapshot, render_precision(o.precision));
    const NerfModel& model = *loaded.model;
    ThreadPool pool(o.threads);
    Dataset dataset = load_transforms(o.transforms);
    if (o.holdout_every) select_holdout(dataset, o.holdout_every, true);
    // Staging checks every image against the json (size vs w/h, divisibility by --downscale).
    ImageSet views = stage_images(dataset, {o.downscale}, pool);
    if (!o.out_dir.empty()) make_output_dir(o.out_dir, "--out-dir");
    const size_t n = o.max_views > 0 ? std::min<size_t>(size_t(o.max_views), views.images.size())
                                     : views.images.size();

    Report report;
    report.command = "eval";
    report.threads = pool.size();
    nlohmann::json per_view = nlohmann::json::array();
    Progress progress("eval", n, 0, 5.0, "view");
    EvalResult result;
    Timer timer;
    for (size_t v = 0; v < n; ++v) {
        const StagedImage& im = views.images[v];
        const ImageF rendered = render_view(model, im.camera, im.camera_to_world, bg.data(), pool);
        const ImageF truth = view_on_background(views, v, bg.data());
        const double p = psnr(rendered, truth), s = ssim(rendered, truth, &pool);
        result.psnr += p;
        result.ssim += s;
        const std::string name = fs::path(dataset.frames[v].image_path).stem().string();
        per_view.push_back({{"image", dataset.frames[v].image_path}, {"psnr", p}, {"ssim", s}});
        if (!o.out_dir.empty())
            save_png((fs::path(o.out_dir) / (name + ".png")).string(), rendered);
        ProgressState st;
        st.step = v + 1;
        st.psnr = result.psnr / double(v + 1);
        progress.update(st);
    }
    ProgressState st;
    st.step = n;
    progress.finish(st);
    result.views = n;
    result.psnr /= double(std::max<size_t>(n, 1));
    result.ssim /= double(std::max<size_t>(n, 1));

    std::printf("%s: PSNR %.2f dB, SSIM %.4f over %zu views (%dx%d, background %s), %.1f s\n",
                o.transforms.c_str(), result.psnr, result.ssim, n, views.images[0].width,
                views.images[0].height, o.background.c_str(), timer.seconds());
    if (!o.out_dir.empty()) std::printf("renders: %s\n", o.out_dir.c_str());
    if (!o.report.empty()) {
        report.psnr = result.psnr;
        report.ssim = result.ssim;
        report.peak_rss_mb = peak_rss_mb();
        const auto& h = loaded.file.header();
        if (h.contains("training")) report.steps = h["training"].value("step", uint64_t(0));
        report.extra = {{"snapshot", o.snapshot},
                        {"transforms", o.transforms},
                        {"downscale", o.downscale},
                        {"background", bg},
                        {"views", per_view},
                        {"render_seconds", timer.seconds()},
                        {"mlp_precision", model.field().density_mlp().uses_bf16() ||
                                                  model.field().color_mlp().uses_bf16()
                                              ? "bf16"
                                              : "fp32"}};
        report.write(o.report);
        std::printf("report: %s\n", o.report.c_str());
    }
    return result;
}

Command add_eval_command(CLI::App& app) {
    auto o = std::make_shared<EvalOptions>();
    CLI::App* cmd = app.add_subcommand("eval",
                                       "Render every view of a transforms json with a snapshot; "
                                       "print and report mean PSNR and SSIM.");
    cmd->add_option("SNAPSHOT", o->snapshot, ".radiant snapshot from `radiant train`")->required();
    cmd->add_option("TRANSFORMS", o->transforms,
                    "transforms json (or its folder) of the views to score")
        ->required();
    cmd->add_option("--downscale", o->downscale, "integer box downscale of the reference images")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd->add_option("--holdout-every", o->holdout_every,
                    "score only every K-th view: the ones `train --holdout-every K` left out")
        ->check(CLI::Range(2, 1000000));
    cmd->add_option("--background", o->background,
                    "colour behind transparent pixels: white, black or R,G,B in [0, 1]")
        ->capture_default_str();
    cmd->add_option("--out-dir", o->out_dir, "write each render as a PNG into this folder");
    cmd->add_option("--views", o->max_views, "score only the first N views (0: all)")
        ->check(CLI::Range(0, 1000000));
    cmd->add_option("--report", o->report, "write a JSON report (DESIGN §1) to this path");
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024));
    add_render_precision_option(*cmd, o->precision);
    return {cmd, [o] {
                run_eval(*o);
                return 0;
            }};
}

}  // namespace radiant

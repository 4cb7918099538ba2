// bench-nerf: trains a NeRF on a NeRF-synthetic scene through the same TrainingSession as
// `radiant train` (schedule included) and reports wall time, samples/s and PSNR on held-out
// views (white background), side by side per checkpoint, without snapshots or reports
// (`radiant train --val ... --report` is the user-facing way).
//
//   bench-nerf SCENE_DIR [--downscale K] [--steps N] [--every N] [--views V] [--log2-table K]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/system.h"
#include "core/timer.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "train/model_setup.h"
#include "train/training_session.h"

using namespace radiant;

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: bench-nerf SCENE_DIR [--downscale K] [--steps N] [--every N] [--views "
                     "V] [--log2-table K] [--bf16 0|1] [--target-samples N]\n");
        return 2;
    }
    std::string scene = argv[1];
    int downscale = 4, steps = 1000, every = 250, views = 10, log2_table = 19, bf16 = 0;
    size_t target = size_t(1) << 16;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--downscale"))
            downscale = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--steps"))
            steps = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--every"))
            every = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--views"))
            views = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--log2-table"))
            log2_table = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--bf16"))
            bf16 = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--target-samples"))
            target = size_t(std::atol(argv[i + 1]));
    }
    try {
        ThreadPool pool;
        Dataset train = load_transforms(scene);
        Dataset val = load_transforms(resolve_transforms_path(scene + "/transforms_val.json"));
        ImageSet train_set = stage_images(train, {downscale}, pool);
        ImageSet val_set = stage_images(val, {downscale}, pool);
        NerfModelConfig model_config = NerfModelConfig::for_dataset(train, log2_table);
        if (bf16) model_config.field.precision = MlpPrecision::kBf16;
        model_config.match_pixel_footprint(
            typical_pixel_footprint(train_set, model_config.scene));  // as train
        auto model = std::make_unique<NerfModel>(model_config);
        NerfTrainConfig config;
        config.target_samples = target;
        model->init_params(config.seed);
        TrainingPlan plan;
        plan.steps = uint64_t(steps);
        plan.val_every = uint64_t(every);
        plan.val_views = views;
        plan.checkpoint_every = 0;
        TrainingSession session(train_set, val_set, std::move(model), config, plan, {}, pool);
        std::printf("%zu training views %dx%d, staged in %.2f s; %d threads\n",
                    train_set.images.size(), train_set.images[0].width, train_set.images[0].height,
                    train_set.staging_seconds, pool.size());
        while (session.status() == TrainingSession::Status::kRunning) {
            TrainingSession::StepResult r = session.step();
            if (session.status() == TrainingSession::Status::kFinished)
                r.psnr = session.validation_psnr(views);
            if (r.psnr)
                std::printf(
                    "step %5llu  %7.1f s  %.0f samples/s  %4zu rays/step  val PSNR (%d views) %.2f "
                    "dB  peak RSS %.0f MiB\n",
                    static_cast<unsigned long long>(r.step), r.seconds,
                    session.samples_per_second(), session.trainer().rays_last_step(),
                    std::min<int>(views, int(val_set.images.size())), *r.psnr, peak_rss_mb());
            std::fflush(stdout);
        }
        if (session.status() == TrainingSession::Status::kDiverged) {
            std::fprintf(stderr, "bench-nerf: training diverged at step %llu\n",
                         static_cast<unsigned long long>(session.steps()));
            return 1;
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "bench-nerf: %s\n", e.what());
        return 2;
    }
    return 0;
}

// bench-nerf: trains the NeRF trainer on a NeRF-synthetic scene and reports wall time,
// samples/s and PSNR on held-out views (white background), side by side per checkpoint,
// without snapshots or reports (`radiant train --val ... --report` is the user-facing way).
//
//   bench-nerf SCENE_DIR [--downscale K] [--steps N] [--every N] [--views V] [--log2-table K]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/system.h"
#include "core/timer.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/metrics.h"
#include "nerf/render_view.h"
#include "nerf/trainer.h"

using namespace radiant;

static double view_psnr(const NerfModel& model, const ImageSet& set, size_t v, ThreadPool& pool) {
    const StagedImage& im = set.images[v];
    const float white[3] = {1, 1, 1};
    return psnr_against_view(render_view(model, im.camera, im.camera_to_world, white, pool), set, v, white);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench-nerf SCENE_DIR [--downscale K] [--steps N] [--every N] [--views V] [--log2-table K] [--bf16 0|1] [--target-samples N]\n");
        return 2;
    }
    std::string scene = argv[1];
    int downscale = 4, steps = 1000, every = 250, views = 10, log2_table = 19, bf16 = 0;
    size_t target = size_t(1) << 16;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--downscale")) downscale = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--every")) every = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--views")) views = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--log2-table")) log2_table = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--bf16")) bf16 = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--target-samples")) target = size_t(std::atol(argv[i + 1]));
    }
    try {
        ThreadPool pool;
        Dataset train = load_transforms(scene);
        Dataset val = load_transforms(resolve_transforms_path(scene + "/transforms_val.json"));
        ImageSet train_set = stage_images(train, {downscale}, pool);
        ImageSet val_set = stage_images(val, {downscale}, pool);
        NerfModelConfig model_config = NerfModelConfig::for_dataset(train, log2_table);
        if (bf16) model_config.field.precision = MlpPrecision::kBf16;
        NerfModel model(model_config);
        NerfTrainConfig config;
        config.target_samples = target;
        model.init_params(config.seed);
        NerfTrainer trainer(train_set, model, config, pool);
        std::printf("%zu training views %dx%d, staged in %.2f s; %d threads\n", train_set.images.size(),
                    train_set.images[0].width, train_set.images[0].height, train_set.staging_seconds, pool.size());
        double seconds = 0, samples = 0;
        for (int s = 1; s <= steps; ++s) {
            Timer t;
            trainer.step();
            seconds += t.seconds();
            samples += double(trainer.samples_last_step());
            if (s % every == 0 || s == steps) {
                double psnr = 0;
                const int n = std::min<int>(views, int(val_set.images.size()));
                for (int v = 0; v < n; ++v) psnr += view_psnr(model, val_set, v, pool);
                std::printf("step %5d  %7.1f s  %.0f samples/s  %4zu rays/step  val PSNR (%d views) %.2f dB  peak RSS %.0f MiB\n",
                            s, seconds, samples / seconds, trainer.rays_last_step(), n, psnr / n, peak_rss_mb());
                std::fflush(stdout);
            }
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "bench-nerf: %s\n", e.what());
        return 2;
    }
    return 0;
}

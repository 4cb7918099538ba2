#include "train/model_setup.h"

#include <cmath>

#include "nn/amx.h"

namespace radiant {

float typical_pixel_footprint(const ImageSet& images, const SceneTransform& scene,
                              Communicator* comm) {
    double sum_log = 0, count = 0;
    for (const StagedImage& im : images.images) {
        const float f = pixel_footprint(im.camera, im.camera_to_world, scene);
        if (std::isfinite(f) && f > 0) sum_log += std::log(double(f)), count += 1;
    }
    if (comm && comm->distributed()) sum_log = comm->sum(sum_log), count = comm->sum(count);
    return count > 0 ? float(std::exp(sum_log / count)) : 0.0f;
}

std::unique_ptr<NerfModel> new_training_model(const Dataset& dataset, const ImageSet& images,
                                              const ModelChoices& choices, uint64_t seed,
                                              Communicator* comm) {
    NerfModelConfig mc = NerfModelConfig::for_dataset(dataset, choices.log2_table);
    mc.field.set_encoding(choices.levels, choices.features);
    // Steps no finer than the views resolve (NerfModelConfig::match_pixel_footprint).
    mc.match_pixel_footprint(typical_pixel_footprint(images, mc.scene, comm));
    // bf16 wherever the CPU has AMX or AVX512-BF16. On Zen 4 (AVX512-BF16) a fox step is ~8%
    // and a lego-200 step ~3% faster, at the same PSNR after the same steps (BENCHMARKS.md,
    // round 9; round 1 had found no gain, when the MLPs were a smaller share of a step).
    bool bf16 = choices.bf16_if_native && amx::available();
    if (comm && comm->distributed()) bf16 = !comm->any(!bf16);
    mc.field.precision = bf16 ? MlpPrecision::kBf16 : MlpPrecision::kFp32;
    auto model = std::make_unique<NerfModel>(mc);
    model->init_params(seed);
    return model;
}

}  // namespace radiant

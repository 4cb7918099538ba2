#include "train/model_setup.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

bool all_pixels_opaque(const ImageSet& images, Communicator* comm) {
    bool opaque = true;
    for (size_t i = 3; i < images.rgba.size() && opaque; i += 4) opaque = images.rgba[i] == 255;
    if (comm && comm->distributed()) opaque = !comm->any(!opaque);
    return opaque;
}

float camera_extent(const ImageSet& images, const SceneTransform& scene, Communicator* comm) {
    double extent = 0;
    for (const StagedImage& im : images.images) {
        const Vec3 o = camera_origin(im.camera_to_world, scene);
        extent = std::max({extent, double(std::abs(o.x - 0.5f)), double(std::abs(o.y - 0.5f)),
                           double(std::abs(o.z - 0.5f))});
    }
    if (comm && comm->distributed()) extent = comm->max(extent);
    return float(extent);
}

namespace {
// Unbounded scenes: the inner region holds every camera (at least the unit cube), and the
// occupancy grid reaches eight inner radii across (four out: contracted 1.75 of 2) before the
// far sample. Not the default: on fox it scores below the scene box (BENCHMARKS.md, issue 33).
void choose_space(NerfModelConfig& mc, const ImageSet& images, SceneSpace space, Communicator* comm,
                  std::string* note) {
    if (space == SceneSpace::kBounded) {
        if (note) {
            *note = "space: bounded, the dataset's scene box (aabb_scale " +
                    std::to_string(int(mc.field.aabb_scale)) + ")";
            if (all_pixels_opaque(images, comm))
                *note += "; if a photo capture's held-out views fog up, try --space unbounded";
        }
        return;
    }
    // At most 16: the finest level (8192 cells per inner radius) and the level scale stay in
    // what snapshots accept for every encoding; cameras further out are then contracted too.
    const float radius = std::clamp(camera_extent(images, mc.scene, comm), 0.5f, 16.0f);
    float aabb = mc.field.aabb_scale;
    while (aabb < 8.0f * radius && aabb < 128.0f) aabb *= 2.0f;
    if (aabb != mc.field.aabb_scale) {
        const SceneTransform scene = mc.scene;
        const FieldConfig field = mc.field;
        mc = NerfModelConfig::for_scene(aabb, scene, field.grid.log2_hashmap_size);
        mc.field.set_encoding(field.grid.n_levels, field.grid.n_features_per_level);
    }
    mc.make_unbounded(radius);
    if (note) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "space: unbounded, contracted beyond %.2f around the scene centre (the "
                      "farthest camera), occupancy grid to aabb_scale %d, background as a far "
                      "sample",
                      double(radius), int(aabb));
        *note = line;
    }
}
}  // namespace

std::unique_ptr<NerfModel> new_training_model(const Dataset& dataset, const ImageSet& images,
                                              const ModelChoices& choices, uint64_t seed,
                                              Communicator* comm, std::string* space_note) {
    NerfModelConfig mc = NerfModelConfig::for_dataset(dataset, choices.log2_table);
    mc.field.set_encoding(choices.levels, choices.features);
    choose_space(mc, images, choices.space, comm, space_note);
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

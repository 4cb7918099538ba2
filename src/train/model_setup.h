// The model a new training run starts from, and the MLP precision policy.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/model.h"
#include "parallel/communicator.h"

namespace radiant {

// Bounded: the dataset's scene box. Unbounded: contracted space and a far sample
// (NerfModelConfig::make_unbounded), for captures whose background reaches beyond the box.
enum class SceneSpace { kBounded, kUnbounded };

struct ModelChoices {
    SceneSpace space = SceneSpace::kBounded;
    int log2_table = 19;            // hash table size per level
    int levels = 16, features = 2;  // hash grid levels x features per level
    bool bf16_if_native = true;  // bf16 MLP products wherever every rank's CPU runs them natively
};

// A freshly initialised model for `dataset` (its scene box and transform): the encoding as
// chosen, march steps no finer than the staged views resolve (NerfModelConfig::
// match_pixel_footprint over every rank's `images`), and bf16 MLPs where AMX or AVX512-BF16
// is there on every rank (so a cluster of mixed CPUs trains and snapshots one precision).
// Collective when `comm` is distributed.
// `space_note` (may be null) receives a line saying which space was chosen and why.
std::unique_ptr<NerfModel> new_training_model(const Dataset& dataset, const ImageSet& images,
                                              const ModelChoices& choices, uint64_t seed,
                                              Communicator* comm,
                                              std::string* space_note = nullptr);

// Whether every staged pixel of every rank is opaque. Collective when `comm` is distributed.
bool all_pixels_opaque(const ImageSet& images, Communicator* comm = nullptr);
// The largest max-norm distance of a training camera from the unit cube's centre (unit-cube
// frame), over every rank's cameras. Collective when `comm` is distributed.
float camera_extent(const ImageSet& images, const SceneTransform& scene,
                    Communicator* comm = nullptr);

// The geometric mean of pixel_footprint() over the staged training views of every rank (each
// rank passes its own share; `comm` null: one rank), the same value on every rank: what
// NerfModelConfig::match_pixel_footprint takes before training starts.
float typical_pixel_footprint(const ImageSet& images, const SceneTransform& scene,
                              Communicator* comm = nullptr);

}  // namespace radiant

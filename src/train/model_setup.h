// The model a new training run starts from, and the MLP precision policy.
#pragma once

#include <cstdint>
#include <memory>

#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/model.h"
#include "parallel/communicator.h"

namespace radiant {

struct ModelChoices {
    int log2_table = 19;            // hash table size per level
    int levels = 16, features = 2;  // hash grid levels x features per level
    bool bf16_if_native = true;  // bf16 MLP products wherever every rank's CPU runs them natively
};

// A freshly initialised model for `dataset` (its scene box and transform): the encoding as
// chosen, march steps no finer than the staged views resolve (NerfModelConfig::
// match_pixel_footprint over every rank's `images`), and bf16 MLPs where AMX or AVX512-BF16
// is there on every rank (so a cluster of mixed CPUs trains and snapshots one precision).
// Collective when `comm` is distributed.
std::unique_ptr<NerfModel> new_training_model(const Dataset& dataset, const ImageSet& images,
                                              const ModelChoices& choices, uint64_t seed,
                                              Communicator* comm);

// The geometric mean of pixel_footprint() over the staged training views of every rank (each
// rank passes its own share; `comm` null: one rank), the same value on every rank: what
// NerfModelConfig::match_pixel_footprint takes before training starts.
float typical_pixel_footprint(const ImageSet& images, const SceneTransform& scene,
                              Communicator* comm = nullptr);

}  // namespace radiant

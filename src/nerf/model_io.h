// Saving and loading NerfModels (and, for --resume, the trainer's state) as `.radiant`
// snapshots (io/snapshot.h holds the container format).
//
// Header: {"kind": "radiant-nerf", "model": {field, scene, march, grid}, "training": {step,
// next_rays, seed, optimizer_steps} when optimiser state is saved, "views": the training
// cameras (for orbits), plus whatever the caller adds under "info"}. Blocks: "params" (fp32),
// "occupancy" (fp32 cell estimates), and "adam_m", "adam_v" with the optimiser state.
#pragma once

#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>

#include "io/snapshot.h"
#include "io/staging.h"
#include "nerf/model.h"
#include "nerf/trainer.h"

namespace radiant {

nlohmann::json model_config_to_json(const NerfModelConfig& c);
// Throws Error(path, ...) when a field is missing or out of range.
NerfModelConfig model_config_from_json(const nlohmann::json& j, const std::string& path);

// The training cameras, so later commands can frame orbits like the training views.
nlohmann::json views_to_json(const ImageSet& images);

// Writes the model (and the trainer's optimiser state when `trainer` is given, with
// `training_extra` merged into the header's "training" section: the session's clock and
// history). Refuses (Error) to write non-finite parameters, so a diverged run never replaces
// a good snapshot.
void save_model_snapshot(const std::string& path, const NerfModel& model, NerfTrainer* trainer,
                         const nlohmann::json& views, const nlohmann::json& info,
                         const nlohmann::json& training_extra = nlohmann::json::object());

struct LoadedModel {
    std::unique_ptr<NerfModel> model;
    SnapshotFile file;
};
// Reads a snapshot and rebuilds its model (parameters and occupancy grid). `precision`, when
// given, replaces the snapshot's MLP precision: a model trained in fp32 can render with bf16
// products (the parameters stay fp32 either way).
LoadedModel load_model_snapshot(const std::string& path, std::optional<MlpPrecision> precision = std::nullopt);
// Restores the trainer's optimiser state and step from a snapshot that has one.
void restore_trainer_state(const SnapshotFile& file, NerfTrainer& trainer);

}  // namespace radiant

// Saving and loading NerfModels as `.radiant` snapshots (io/snapshot.h holds the container
// format). What training adds for --resume is a section it writes and reads itself
// (train/training_state.h): this file knows nothing of training.
//
// Header: {"kind": "radiant-nerf", "model": {field, scene, march, grid}, "views": the training
// cameras (for orbits), whatever the caller adds under "info", and the optional section (e.g.
// "training")}. Blocks: "params" (fp32), "occupancy" (fp32 cell estimates), and the section's.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/snapshot.h"
#include "io/staging.h"
#include "nerf/model.h"

namespace radiant {

nlohmann::json model_config_to_json(const NerfModelConfig& c);
// Throws Error(path, ...) when a field is missing or out of range.
NerfModelConfig model_config_from_json(const nlohmann::json& j, const std::string& path);

// The training cameras, so later commands can frame orbits like the training views.
nlohmann::json views_to_json(const ImageSet& images);

// A part of the snapshot that a later stage owns: its header goes under `name`, its blocks
// beside the model's (training's optimiser state and schedule: train/training_state.h).
struct SnapshotSection {
    std::string name;
    nlohmann::json header;
    std::vector<SnapshotBlockRef> blocks;
};

// Writes the model, and `section` when given. Refuses (Error) to write non-finite parameters,
// so a diverged run never replaces a good snapshot.
void save_model_snapshot(const std::string& path, const NerfModel& model,
                         const nlohmann::json& views, const nlohmann::json& info,
                         const SnapshotSection* section = nullptr);

struct LoadedModel {
    std::unique_ptr<NerfModel> model;
    SnapshotFile file;
};
// Reads a snapshot and rebuilds its model (parameters and occupancy grid). `precision`, when
// given, replaces the snapshot's MLP precision: a model trained in fp32 can render with bf16
// products (the parameters stay fp32 either way).
LoadedModel load_model_snapshot(const std::string& path,
                                std::optional<MlpPrecision> precision = std::nullopt);

}  // namespace radiant

// The training section of a snapshot, for --resume: one writer and one reader of it.
//
// Header "training": {step, next_rays, seed, optimizer_steps, rank_rays (with several ranks),
// seconds (the run's training time so far), history ([step, seconds, loss, psnr?] points)}.
// Blocks "adam_m" and "adam_v": the optimiser's moments (whole: gather them first when ranks
// shard them, NerfTrainer::gather_optimizer_state).
#pragma once

#include <optional>
#include <vector>

#include "core/report.h"
#include "io/snapshot.h"
#include "nerf/model_io.h"
#include "train/trainer.h"

namespace radiant {

// What training adds to a snapshot: the trainer's step, schedule and optimiser state, and the
// session's clock and history. The blocks point into the trainer's optimiser: write the
// snapshot before the next step.
SnapshotSection training_section(NerfTrainer& trainer, double seconds,
                                 const std::vector<HistoryPoint>& history);

// The session's part of a restored training section (absent in snapshots written before it).
struct RestoredTraining {
    std::optional<double> seconds;
    std::optional<std::vector<HistoryPoint>> history;
};
// Restores the trainer's optimiser state, step and ray counts from the snapshot's training
// section and returns the session's part. Error when the snapshot has none (saved for
// rendering only) or it is malformed.
RestoredTraining restore_training_state(const SnapshotFile& file, NerfTrainer& trainer);

}  // namespace radiant

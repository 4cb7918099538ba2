// One NeRF training run, start to finish: the trainer and its model on the training loop
// (train/training_loop.h: schedule, stop conditions, validation, history, when checkpoints
// fall due), plus what is NeRF's own: snapshots with the cameras, resume, validation renders
// and sample rates. `radiant train`, the viewer (between steps), MPI ranks, the benchmarks and
// the tests drive it a step at a time.
//
// Time-bounded runs keep their clock in the snapshot: a resumed `--seconds` run continues its
// time budget and its schedule where it stopped. Step-bounded runs resume bit-exactly (same
// seed and thread count); time-bounded ones cannot, since where the time runs out depends on
// the machine's speed.
//
// With several ranks (MPI) every rank runs the same session on its share of the images, in
// lockstep: the step time is the slowest rank's, a stop request on any rank stops all of them
// after the same step, validation views are split over ranks, and rank 0 alone writes
// snapshots. Every public method but the accessors is then collective.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/report.h"
#include "core/thread_pool.h"
#include "io/snapshot.h"
#include "io/staging.h"
#include "nerf/model.h"
#include "train/trainer.h"
#include "train/training_loop.h"

namespace radiant {

class TrainingSession : private LoopTask {
  public:
    using Status = TrainingLoop::Status;
    using StepResult = TrainingLoop::StepResult;

    // The training cameras and `info` go into every snapshot header (scene, options). `train`
    // is this rank's share of the images (ranks hold consecutive frames, in rank order);
    // `val` is the whole validation set. `comm` (null: one rank) must outlive the session.
    TrainingSession(const ImageSet& train, const ImageSet& val, std::unique_ptr<NerfModel> model,
                    const NerfTrainConfig& config, const TrainingPlan& plan, nlohmann::json info,
                    ThreadPool& pool, Communicator* comm = nullptr);

    // Continues a run from its snapshot: optimiser state, step, training time and history.
    void resume_from(const SnapshotFile& file);

    // One training step, then the validation and checkpoint that fall due. Call only while
    // status() is kRunning.
    StepResult step();
    Status status() const { return m_loop.status(); }
    // Ends the run (Ctrl-C, a viewer's stop button): now with one rank; with several, every
    // rank stops after the next step, so keep stepping while status() is kRunning.
    void request_stop() { m_loop.request_stop(); }

    // Writes a snapshot now (atomically) unless the last one already holds this step.
    void save();
    // Mean PSNR (white background) over up to `views` validation views spread over the set;
    // nullopt without validation views.
    std::optional<double> validation_psnr(int views) const;

    NerfModel& model() { return *m_model; }
    const NerfModel& model() const { return *m_model; }
    NerfTrainer& trainer() { return m_trainer; }
    const NerfTrainer& trainer() const { return m_trainer; }
    const TrainingPlan& plan() const { return m_loop.plan(); }
    const std::vector<HistoryPoint>& history() const { return m_loop.history(); }
    std::vector<HistoryPoint>& history() { return m_loop.history(); }
    uint64_t steps() const { return m_trainer.steps(); }
    double seconds() const { return m_loop.seconds(); }
    // Rates over this process's steps (a resumed run counts only its own).
    double samples_per_second() const {
        return m_samples / std::max(m_loop.run_seconds(), 1e-9);
    }  // marched
    // Of them, the ones in front of where their ray turned opaque (the MLPs and the hash
    // backward see only these; NerfTrainConfig::drop_occluded_samples).
    double trained_samples_per_second() const {
        return m_samples_trained / std::max(m_loop.run_seconds(), 1e-9);
    }
    double rays_per_second() const { return m_rays / std::max(m_loop.run_seconds(), 1e-9); }
    // Whether a snapshot holding the latest good state exists (false before the first save).
    bool saved_any() const { return m_saved_any; }
    const ImageSet& validation_images() const { return m_val; }

  private:
    // LoopTask: what the loop steps.
    double train_step() override { return m_trainer.step(); }
    uint64_t steps_done() const override { return m_trainer.steps(); }
    std::optional<double> validate(int views) override { return validation_psnr(views); }
    void set_learning_rate_scale(float scale) override {
        m_trainer.optimizer().set_learning_rate_scale(scale);
    }
    void save_checkpoint() override { save(); }

    const ImageSet& m_train;
    const ImageSet& m_val;
    std::unique_ptr<NerfModel> m_model;
    NerfTrainer m_trainer;
    nlohmann::json m_views, m_info;
    ThreadPool& m_pool;
    Communicator* m_comm;  // null unless several ranks
    TrainingLoop m_loop;
    double m_samples = 0, m_samples_trained = 0, m_rays = 0;
    uint64_t m_last_saved_step = 0;
    bool m_saved_any = false;
};

}  // namespace radiant

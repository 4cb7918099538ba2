// One NeRF training run, start to finish: the learning-rate schedule, the stop conditions
// (steps, training seconds, a stop request), periodic validation PSNR, history, checkpoints
// and resume. `radiant train`, the benchmarks and the tests drive it a step at a time, and so
// will the viewer (between steps) and MPI ranks, so all of them share one loop.
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

namespace radiant {

struct TrainingPlan {
    uint64_t steps = 0;         // total steps (0: no step limit); with resume, the total, not more
    double seconds = 0;         // total training seconds (0: no time limit)
    uint64_t stop_at_step = 0;  // stop as if interrupted once this step is done (0: never)
    uint64_t val_every = 1000;  // steps between validation PSNRs (0: only at the end)
    int val_views = 4;          // views the periodic validation renders
    std::vector<double> val_at_seconds;  // also validate when the training time passes these
    uint64_t checkpoint_every = 1000;    // steps between snapshots (0: only at the end)
    std::string snapshot_path;           // where checkpoints go (empty: never saved)
};

// Learning-rate scale over a run: constant for its first 70%, then halved every 6% (at 76, 82,
// 88, 94 and 100%), so the last steps settle instead of oscillating. `progress` is in [0, 1].
// Decaying from the middle (halved every tenth) scored 0.12 dB lower on lego-200 at 750 steps
// (three seeds), 0.08 dB on lego-800 at 2100 and 0.7 dB on fox at 1000 (BENCHMARKS.md).
inline constexpr double kLearningRateDecayStart = 0.7;
inline constexpr double kLearningRateHalvingEvery = 0.06;
float learning_rate_scale(double progress);

class TrainingSession {
  public:
    enum class Status {
        kRunning,
        kFinished,  // the plan's steps or seconds are done
        kStopped,   // stop_at_step or request_stop()
        kDiverged,  // the loss became non-finite (nothing saved from that step on)
    };

    struct StepResult {
        uint64_t step = 0;   // steps done after this one
        double seconds = 0;  // training time so far
        double loss = 0;
        std::optional<double> psnr;  // when a validation fell due
        bool saved = false;          // a checkpoint was written
    };

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
    Status status() const { return m_status; }
    // Ends the run (Ctrl-C, a viewer's stop button): now with one rank; with several, every
    // rank stops after the next step, so keep stepping while status() is kRunning.
    void request_stop();

    // Writes a snapshot now (atomically) unless the last one already holds this step.
    void save();
    // Mean PSNR (white background) over up to `views` validation views spread over the set;
    // nullopt without validation views.
    std::optional<double> validation_psnr(int views) const;

    NerfModel& model() { return *m_model; }
    const NerfModel& model() const { return *m_model; }
    NerfTrainer& trainer() { return m_trainer; }
    const NerfTrainer& trainer() const { return m_trainer; }
    const TrainingPlan& plan() const { return m_plan; }
    const std::vector<HistoryPoint>& history() const { return m_history; }
    std::vector<HistoryPoint>& history() { return m_history; }
    uint64_t steps() const { return m_trainer.steps(); }
    double seconds() const { return m_seconds; }
    // Rates over this process's steps (a resumed run counts only its own).
    double samples_per_second() const {
        return m_samples / std::max(m_run_seconds, 1e-9);
    }  // marched
    // Of them, the ones in front of where their ray turned opaque (the MLPs and the hash
    // backward see only these; NerfTrainConfig::drop_occluded_samples).
    double trained_samples_per_second() const {
        return m_samples_trained / std::max(m_run_seconds, 1e-9);
    }
    double rays_per_second() const { return m_rays / std::max(m_run_seconds, 1e-9); }
    // Whether a snapshot holding the latest good state exists (false before the first save).
    bool saved_any() const { return m_saved_any; }
    const ImageSet& validation_images() const { return m_val; }

  private:
    bool plan_done() const;

    const ImageSet& m_train;
    const ImageSet& m_val;
    std::unique_ptr<NerfModel> m_model;
    NerfTrainer m_trainer;
    TrainingPlan m_plan;
    nlohmann::json m_views, m_info;
    ThreadPool& m_pool;
    Status m_status = Status::kRunning;
    double m_seconds = 0;      // training time of the whole run (resumes included)
    double m_run_seconds = 0;  // of this process
    double m_samples = 0, m_samples_trained = 0, m_rays = 0;
    std::vector<HistoryPoint> m_history;
    size_t m_next_timed_val = 0;
    uint64_t m_last_saved_step = 0;
    bool m_saved_any = false;
    Communicator* m_comm;
    bool m_stop_pending = false;
    std::vector<double> m_rank_flags;  // each rank's (step time, stop requested)
};

}  // namespace radiant

// The loop every training run shares, whatever it trains (a NeRF: TrainingSession; an image:
// `radiant fit-image`): the stop conditions (steps, training seconds, a stop request), the
// learning-rate schedule, periodic and timed validation, the loss history, when checkpoints
// fall due, and a non-finite loss. What is trained is a LoopTask, stepped one step at a time.
//
// With several ranks (MPI) every rank runs the loop in lockstep: the step time is the slowest
// rank's and a stop request on any rank stops all of them after the same step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/report.h"
#include "parallel/communicator.h"

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
    // Scale the learning rate by learning_rate_scale(progress); off where the task's
    // optimiser anneals by itself.
    bool decay_learning_rate = true;
};

// Learning-rate scale over a run: constant for its first 70%, then halved every 6% (at 76, 82,
// 88, 94 and 100%), so the last steps settle instead of oscillating. `progress` is in [0, 1].
// Decaying from the middle (halved every tenth) scored 0.12 dB lower on lego-200 at 750 steps
// (three seeds), 0.08 dB on lego-800 at 2100 and 0.7 dB on fox at 1000 (BENCHMARKS.md).
inline constexpr double kLearningRateDecayStart = 0.7;
inline constexpr double kLearningRateHalvingEvery = 0.06;
float learning_rate_scale(double progress);

// What a loop trains.
class LoopTask {
  public:
    virtual ~LoopTask() = default;
    virtual double train_step() = 0;  // one optimiser step; returns its mean loss
    virtual uint64_t steps_done() const = 0;
    virtual void set_learning_rate_scale(float scale) = 0;
    // Mean PSNR over up to `views` held-out views (nullopt: nothing to validate on).
    virtual std::optional<double> validate(int views) = 0;
    virtual void save_checkpoint() = 0;  // called when a checkpoint falls due
};

class TrainingLoop {
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

    // `comm` (null: one rank) must outlive the loop.
    TrainingLoop(LoopTask& task, const TrainingPlan& plan, Communicator* comm = nullptr);

    // Continues a run: its training time so far and history (the task restores its own state).
    void resume(std::optional<double> seconds, std::optional<std::vector<HistoryPoint>> history);

    // One step, then the validation and checkpoint that fall due. Call only while status() is
    // kRunning.
    StepResult step();
    Status status() const { return m_status; }
    // Ends the run: now with one rank; with several, every rank stops after the next step.
    void request_stop();

    const TrainingPlan& plan() const { return m_plan; }
    double seconds() const { return m_seconds; }          // of the whole run (resumes included)
    double run_seconds() const { return m_run_seconds; }  // of this process
    const std::vector<HistoryPoint>& history() const { return m_history; }
    std::vector<HistoryPoint>& history() { return m_history; }

  private:
    bool plan_done() const;

    LoopTask& m_task;
    TrainingPlan m_plan;
    Communicator* m_comm;  // null unless several ranks
    Status m_status = Status::kRunning;
    double m_seconds = 0, m_run_seconds = 0;
    std::vector<HistoryPoint> m_history;
    size_t m_next_timed_val = 0;
    bool m_stop_pending = false;
    std::vector<double> m_rank_flags;  // each rank's (step time, stop requested)
};

}  // namespace radiant

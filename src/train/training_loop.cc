#include "train/training_loop.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/timer.h"

namespace radiant {

float learning_rate_scale(double progress) {
    if (progress <= kLearningRateDecayStart) return 1.0f;
    const double k =
        (std::min(progress, 1.0) - kLearningRateDecayStart) / kLearningRateHalvingEvery;
    return std::pow(0.5f, float(std::floor(k + 1e-9)));
}

TrainingLoop::TrainingLoop(LoopTask& task, const TrainingPlan& plan, Communicator* comm)
    : m_task(task), m_plan(plan), m_comm(comm && comm->distributed() ? comm : nullptr) {
    RD_CHECK(m_plan.steps > 0 || m_plan.seconds > 0);
    std::sort(m_plan.val_at_seconds.begin(), m_plan.val_at_seconds.end());
}

void TrainingLoop::request_stop() {
    if (m_status != Status::kRunning) return;
    if (m_comm)
        m_stop_pending = true;
    else
        m_status = Status::kStopped;
}

void TrainingLoop::resume(std::optional<double> seconds,
                          std::optional<std::vector<HistoryPoint>> history) {
    if (seconds) m_seconds = *seconds;
    if (history) m_history = std::move(*history);
    while (m_next_timed_val < m_plan.val_at_seconds.size() &&
           m_plan.val_at_seconds[m_next_timed_val] <= m_seconds)
        ++m_next_timed_val;
    if (plan_done())
        m_status = Status::kFinished;
    else if (m_plan.stop_at_step > 0 && m_task.steps_done() >= m_plan.stop_at_step)
        m_status = Status::kStopped;
}

bool TrainingLoop::plan_done() const {
    return (m_plan.steps > 0 && m_task.steps_done() >= m_plan.steps) ||
           (m_plan.seconds > 0 && m_seconds >= m_plan.seconds);
}

TrainingLoop::StepResult TrainingLoop::step() {
    RD_CHECK(m_status == Status::kRunning);
    if (m_plan.decay_learning_rate) {
        double progress = 0;
        if (m_plan.steps > 0) progress = double(m_task.steps_done()) / double(m_plan.steps);
        if (m_plan.seconds > 0) progress = std::max(progress, m_seconds / m_plan.seconds);
        m_task.set_learning_rate_scale(learning_rate_scale(progress));
    }

    Timer timer;
    const double loss = m_task.train_step();
    double dt = timer.seconds();
    bool stop = false;
    if (m_comm) {  // one clock for all ranks (the slowest), and a stop on any rank stops all
        const double mine[2] = {dt, m_stop_pending ? 1.0 : 0.0};
        m_rank_flags.resize(2 * size_t(m_comm->size()));
        m_comm->allgather(mine, 2, m_rank_flags.data());
        for (size_t r = 0; r < m_rank_flags.size(); r += 2)
            dt = std::max(dt, m_rank_flags[r]), stop = stop || m_rank_flags[r + 1] > 0;
    }
    m_seconds += dt;
    m_run_seconds += dt;
    StepResult r{m_task.steps_done(), m_seconds, loss, std::nullopt, false};
    if (!std::isfinite(loss)) {
        m_status = Status::kDiverged;
        return r;
    }

    const bool last = plan_done();
    bool timed_val = false;
    while (m_next_timed_val < m_plan.val_at_seconds.size() &&
           m_seconds >= m_plan.val_at_seconds[m_next_timed_val])
        timed_val = true, ++m_next_timed_val;
    if (!last && ((m_plan.val_every > 0 && r.step % m_plan.val_every == 0) || timed_val))
        r.psnr = m_task.validate(m_plan.val_views);
    if (r.step % 10 == 0 || last || r.psnr) m_history.push_back({r.step, r.seconds, loss, r.psnr});
    if (m_plan.checkpoint_every > 0 && r.step % m_plan.checkpoint_every == 0 && !last &&
        !m_plan.snapshot_path.empty()) {
        m_task.save_checkpoint();
        r.saved = true;
    }
    if (last)
        m_status = Status::kFinished;
    else if ((m_plan.stop_at_step > 0 && r.step >= m_plan.stop_at_step) || stop)
        m_status = Status::kStopped;
    return r;
}

}  // namespace radiant

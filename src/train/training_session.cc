#include "train/training_session.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/timer.h"
#include "nerf/metrics.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"
#include "train/training_state.h"

namespace radiant {

float learning_rate_scale(double progress) {
    if (progress <= kLearningRateDecayStart) return 1.0f;
    const double k =
        (std::min(progress, 1.0) - kLearningRateDecayStart) / kLearningRateHalvingEvery;
    return std::pow(0.5f, float(std::floor(k + 1e-9)));
}

TrainingSession::TrainingSession(const ImageSet& train, const ImageSet& val,
                                 std::unique_ptr<NerfModel> model, const NerfTrainConfig& config,
                                 const TrainingPlan& plan, nlohmann::json info, ThreadPool& pool,
                                 Communicator* comm)
    : m_train(train),
      m_val(val),
      m_model(std::move(model)),
      m_trainer(train, *m_model, config, pool, comm),
      m_plan(plan),
      m_views(views_to_json(train)),
      m_info(std::move(info)),
      m_pool(pool),
      m_comm(comm && comm->distributed() ? comm : nullptr) {
    RD_CHECK(m_plan.steps > 0 || m_plan.seconds > 0);
    std::sort(m_plan.val_at_seconds.begin(), m_plan.val_at_seconds.end());
    if (m_comm) {  // the snapshot lists every rank's cameras, in frame order
        nlohmann::json all = nlohmann::json::array();
        for (const std::string& part : m_comm->allgather_strings(m_views.dump()))
            for (auto& v : nlohmann::json::parse(part)) all.push_back(std::move(v));
        m_views = std::move(all);
    }
}

void TrainingSession::request_stop() {
    if (m_status != Status::kRunning) return;
    if (m_comm)
        m_stop_pending = true;
    else
        m_status = Status::kStopped;
}

void TrainingSession::resume_from(const SnapshotFile& file) {
    const RestoredTraining restored = restore_training_state(file, m_trainer);
    if (restored.seconds) m_seconds = *restored.seconds;
    if (restored.history) m_history = *restored.history;
    while (m_next_timed_val < m_plan.val_at_seconds.size() &&
           m_plan.val_at_seconds[m_next_timed_val] <= m_seconds)
        ++m_next_timed_val;
    m_last_saved_step = m_trainer.steps();
    m_saved_any = true;
    if (plan_done())
        m_status = Status::kFinished;
    else if (m_plan.stop_at_step > 0 && steps() >= m_plan.stop_at_step)
        m_status = Status::kStopped;
}

bool TrainingSession::plan_done() const {
    return (m_plan.steps > 0 && steps() >= m_plan.steps) ||
           (m_plan.seconds > 0 && m_seconds >= m_plan.seconds);
}

TrainingSession::StepResult TrainingSession::step() {
    RD_CHECK(m_status == Status::kRunning);
    double progress = 0;
    if (m_plan.steps > 0) progress = double(steps()) / double(m_plan.steps);
    if (m_plan.seconds > 0) progress = std::max(progress, m_seconds / m_plan.seconds);
    m_trainer.optimizer().set_learning_rate_scale(learning_rate_scale(progress));

    Timer timer;
    const double loss = m_trainer.step();
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
    StepResult r{steps(), m_seconds, loss, std::nullopt, false};
    if (!std::isfinite(loss)) {
        m_status = Status::kDiverged;
        return r;
    }
    m_samples += double(m_trainer.samples_last_step());
    m_samples_trained += double(m_trainer.samples_trained_last_step());
    m_rays += double(m_trainer.rays_last_step());

    const bool last = plan_done();
    bool timed_val = false;
    while (m_next_timed_val < m_plan.val_at_seconds.size() &&
           m_seconds >= m_plan.val_at_seconds[m_next_timed_val])
        timed_val = true, ++m_next_timed_val;
    if (!last && ((m_plan.val_every > 0 && r.step % m_plan.val_every == 0) || timed_val))
        r.psnr = validation_psnr(m_plan.val_views);
    if (r.step % 10 == 0 || last || r.psnr) m_history.push_back({r.step, r.seconds, loss, r.psnr});
    if (m_plan.checkpoint_every > 0 && r.step % m_plan.checkpoint_every == 0 && !last &&
        !m_plan.snapshot_path.empty()) {
        save();
        r.saved = true;
    }
    if (last)
        m_status = Status::kFinished;
    else if ((m_plan.stop_at_step > 0 && r.step >= m_plan.stop_at_step) || stop)
        m_status = Status::kStopped;
    return r;
}

void TrainingSession::save() {
    if (m_plan.snapshot_path.empty() || (m_saved_any && m_last_saved_step == steps())) return;
    m_trainer.gather_optimizer_state();
    if (!m_comm || m_comm->is_root()) {
        const SnapshotSection training = training_section(m_trainer, m_seconds, m_history);
        save_model_snapshot(m_plan.snapshot_path, *m_model, m_views, m_info, &training);
    }
    m_last_saved_step = steps();
    m_saved_any = true;
}

std::optional<double> TrainingSession::validation_psnr(int max_views) const {
    if (m_val.images.empty()) return std::nullopt;
    const float white[3] = {1, 1, 1};
    const size_t n = std::min<size_t>(size_t(std::max(max_views, 1)), m_val.images.size());
    const size_t rank = m_comm ? size_t(m_comm->rank()) : 0,
                 ranks = m_comm ? size_t(m_comm->size()) : 1;
    double sum = 0;
    for (size_t i = rank; i < n; i += ranks) {  // ranks split the views
        const size_t v = i * m_val.images.size() / n;
        const StagedImage& im = m_val.images[v];
        sum += psnr_against_view(
            render_view(*m_model, im.camera, im.camera_to_world, white, m_pool), m_val, v, white);
    }
    if (m_comm) sum = m_comm->sum(sum);
    return sum / double(n);
}

}  // namespace radiant

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

TrainingSession::TrainingSession(const ImageSet& train, const ImageSet& val,
                                 std::unique_ptr<NerfModel> model, const NerfTrainConfig& config,
                                 const TrainingPlan& plan, nlohmann::json info, ThreadPool& pool,
                                 Communicator* comm)
    : m_train(train),
      m_val(val),
      m_model(std::move(model)),
      m_trainer(train, *m_model, config, pool, comm),
      m_views(views_to_json(train)),
      m_info(std::move(info)),
      m_pool(pool),
      m_comm(comm && comm->distributed() ? comm : nullptr),
      m_loop(*this, plan, comm) {
    if (m_comm) {  // the snapshot lists every rank's cameras, in frame order
        nlohmann::json all = nlohmann::json::array();
        for (const std::string& part : m_comm->allgather_strings(m_views.dump()))
            for (auto& v : nlohmann::json::parse(part)) all.push_back(std::move(v));
        m_views = std::move(all);
    }
}

void TrainingSession::resume_from(const SnapshotFile& file) {
    RestoredTraining restored = restore_training_state(file, m_trainer);
    m_last_saved_step = m_trainer.steps();
    m_saved_any = true;
    m_loop.resume(restored.seconds, std::move(restored.history));
}

TrainingSession::StepResult TrainingSession::step() {
    const StepResult r = m_loop.step();
    if (m_loop.status() != Status::kDiverged) {
        m_samples += double(m_trainer.samples_last_step());
        m_samples_trained += double(m_trainer.samples_trained_last_step());
        m_rays += double(m_trainer.rays_last_step());
    }
    return r;
}

void TrainingSession::save() {
    if (plan().snapshot_path.empty() || (m_saved_any && m_last_saved_step == steps())) return;
    m_trainer.gather_optimizer_state();
    if (!m_comm || m_comm->is_root()) {
        const SnapshotSection training = training_section(m_trainer, seconds(), history());
        save_model_snapshot(plan().snapshot_path, *m_model, m_views, m_info, &training);
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

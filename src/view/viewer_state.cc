#include "view/viewer_state.h"

#include <cmath>

namespace radiant {

nlohmann::json viewer_scene_json(const NerfModel& model, const nlohmann::json& views) {
    const SceneTransform& s = model.config().scene;
    const double half = 0.5 * double(model.config().field.aabb_scale);
    auto world = [&](double u) {
        return std::array<double, 3>{(u - s.offset.x) / s.scale, (u - s.offset.y) / s.scale,
                                     (u - s.offset.z) / s.scale};
    };
    nlohmann::json out_views = nlohmann::json::array();
    double up[3] = {0, 0, 0};
    if (views.is_array())
        for (const auto& v : views) {
            const auto m = v.at("camera_to_world").get<std::array<float, 16>>();
            nlohmann::json rows = nlohmann::json::array();
            for (int r = 0; r < 4; ++r)
                rows.push_back({m[size_t(4 * r)], m[size_t(4 * r + 1)], m[size_t(4 * r + 2)],
                                m[size_t(4 * r + 3)]});
            for (int r = 0; r < 3; ++r) up[r] += m[size_t(4 * r + 1)];
            out_views.push_back({{"w", v.at("width")},
                                 {"h", v.at("height")},
                                 {"fl_x", v.at("fl_x")},
                                 {"fl_y", v.at("fl_y")},
                                 {"cx", v.at("cx")},
                                 {"cy", v.at("cy")},
                                 {"transform_matrix", rows}});
        }
    const double n = std::sqrt(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    const std::array<double, 3> mean_up =
        n > 0 ? std::array<double, 3>{up[0] / n, up[1] / n, up[2] / n}
              : std::array<double, 3>{0, 0, 1};
    const auto lo = world(0.5 - half), hi = world(0.5 + half), centre = world(0.5);
    return {{"views", out_views},
            {"box", {{"lo", lo}, {"hi", hi}}},
            {"up", mean_up},
            {"center", centre}};
}

ViewerModel::ViewerModel(std::shared_ptr<const NerfModel> model) : m_current(std::move(model)) {}

std::shared_ptr<const NerfModel> ViewerModel::current() const {
    m_wanted.store(true);
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_current;
}

void ViewerModel::publish(const NerfModel& model) {
    m_wanted.store(false);
    std::shared_ptr<NerfModel> spare;
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        spare = m_spare;
    }
    // A render still holds the spare (it was current a moment ago): try again later.
    if (spare && spare.use_count() > 2) return;
    if (!spare) spare = std::make_shared<NerfModel>(model.config());
    spare->copy_state_from(model);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_spare = std::const_pointer_cast<NerfModel>(m_current);
    m_current = spare;
}

void ViewerControl::set_status(const TrainingStatus& s) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_status = s;
}

TrainingStatus ViewerControl::status() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_status;
}

nlohmann::json ViewerControl::status_json() const {
    const TrainingStatus s = status();
    return {{"training", s.training},
            {"paused", s.paused},
            {"finished", s.finished},
            {"step", s.step},
            {"total_steps", s.total_steps},
            {"seconds", s.seconds},
            {"total_seconds", s.total_seconds},
            {"loss", s.loss},
            {"samples_per_second", s.samples_per_second},
            {"psnr", s.psnr},
            {"loss_history", s.loss_history},
            {"snapshot", s.snapshot},
            {"saved_step", s.saved_step},
            {"message", s.message}};
}

}  // namespace radiant

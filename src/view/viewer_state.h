// What the viewer shares with whoever produces the model: the model to render (a copy the
// trainer publishes between steps, so rendering never races training), the training status the
// page shows, and the page's requests back to the trainer (pause, resume, save).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "nerf/model.h"

namespace radiant {

// /api/scene: the training cameras (from a snapshot header's "views"), the scene box, the
// cameras' mean up direction and the scene centre, all in the dataset's world frame.
nlohmann::json viewer_scene_json(const NerfModel& model, const nlohmann::json& views);

class ViewerModel {
  public:
    // A fixed model (radiant view): rendered as it is.
    explicit ViewerModel(std::shared_ptr<const NerfModel> model);
    // The model a render should use now (kept alive by the caller's reference).
    std::shared_ptr<const NerfModel> current() const;
    // Copies `model` (parameters, packed weights, occupancy grid) for rendering. Between
    // training steps; skips the copy when renders still hold both buffers.
    void publish(const NerfModel& model);
    // Whether a render asked for the model since the last publish (no viewer, no copies).
    bool wanted() const { return m_wanted.load(); }

  private:
    mutable std::mutex m_mutex;
    std::shared_ptr<const NerfModel> m_current;
    std::shared_ptr<NerfModel> m_spare;
    mutable std::atomic<bool> m_wanted{true};
};

struct TrainingStatus {
    bool training = false;  // false for `radiant view`
    bool paused = false, finished = false;
    uint64_t step = 0, total_steps = 0;
    double seconds = 0, total_seconds = 0;
    double loss = 0, samples_per_second = 0;
    std::vector<std::array<double, 3>> psnr;          // (step, seconds, dB)
    std::vector<std::array<double, 3>> loss_history;  // (step, seconds, loss), thinned
    std::string snapshot;
    uint64_t saved_step = 0;
    std::string message;  // last event for the page (e.g. "snapshot saved")
};

// The page's side: status to read, requests to make.
class ViewerControl {
  public:
    void set_status(const TrainingStatus& s);
    TrainingStatus status() const;
    nlohmann::json status_json() const;

    std::atomic<bool> pause_requested{false};
    std::atomic<bool> save_requested{false};

  private:
    mutable std::mutex m_mutex;
    TrainingStatus m_status;
};

}  // namespace radiant

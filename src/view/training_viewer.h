// The viewer attached to a training run (`radiant train --view`): the page follows training
// live (status every step, the model copied for rendering when a page asks for frames, at most
// twice a second) and can pause, resume and save a snapshot.
#pragma once

#include <memory>
#include <string>

#include "core/timer.h"
#include "train/training_session.h"
#include "view/viewer_server.h"

namespace radiant {

class TrainingViewer {
  public:
    TrainingViewer(TrainingSession& session, const nlohmann::json& views,
                   const ViewerOptions& options);
    ~TrainingViewer();

    // Call between steps with the step just done (nullptr before the first). Publishes status
    // and model, saves when asked. Returns true while the page keeps training paused: the
    // caller waits instead of stepping.
    bool between_steps(const TrainingSession::StepResult* last);
    // The final status (finished or stopped), so the page shows it before the server goes.
    void finish();
    std::string url() const { return m_server->url(); }

  private:
    void publish_status(const std::string& message);

    TrainingSession& m_session;
    ViewerModel m_model;
    ViewerControl m_control;
    std::unique_ptr<ViewerServer> m_server;
    TrainingStatus m_status;
    Timer m_since_publish;
};

}  // namespace radiant

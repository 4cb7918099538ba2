#include "view/training_viewer.h"

namespace radiant {

TrainingViewer::TrainingViewer(TrainingSession& session, const nlohmann::json& views,
                               const ViewerOptions& options)
    : m_session(session), m_model(nullptr) {
    m_model.publish(session.model());
    m_status.training = true;
    m_status.total_steps = session.plan().steps;
    m_status.total_seconds = session.plan().seconds;
    m_status.snapshot = session.plan().snapshot_path;
    m_status.step = session.steps();
    m_status.seconds = session.seconds();
    for (const HistoryPoint& h : session.history())
        if (h.psnr) m_status.psnr.push_back({double(h.step), h.seconds, *h.psnr});
    m_control.set_status(m_status);
    m_server = std::make_unique<ViewerServer>(m_model, m_control,
                                              viewer_scene_json(session.model(), views), options);
    m_server->start();
}

TrainingViewer::~TrainingViewer() { m_server->stop(); }

void TrainingViewer::publish_status(const std::string& message) {
    m_status.step = m_session.steps();
    m_status.seconds = m_session.seconds();
    m_status.samples_per_second = m_session.samples_per_second();
    if (!message.empty()) m_status.message = message;
    m_control.set_status(m_status);
}

bool TrainingViewer::between_steps(const TrainingSession::StepResult* last) {
    std::string message;
    if (last) {
        m_status.loss = last->loss;
        if (last->step % 10 == 0 && m_status.loss_history.size() < 5000)
            m_status.loss_history.push_back({double(last->step), last->seconds, last->loss});
        if (last->psnr) m_status.psnr.push_back({double(last->step), last->seconds, *last->psnr});
    }
    if (m_control.save_requested.exchange(false)) {
        m_session.save();
        m_status.saved_step = m_session.steps();
        message = "snapshot saved at step " + std::to_string(m_status.saved_step);
    }
    m_status.paused = m_control.pause_requested.load();
    // Copy the model only for a page that renders, and not more than twice a second.
    if (m_model.wanted() && m_since_publish.seconds() > 0.5) {
        m_model.publish(m_session.model());
        m_since_publish.reset();
    }
    publish_status(message);
    return m_status.paused;
}

void TrainingViewer::finish() {
    m_status.finished = true;
    m_status.paused = false;
    m_model.publish(m_session.model());
    publish_status("training finished");
}

}  // namespace radiant

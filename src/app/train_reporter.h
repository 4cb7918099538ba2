// What `radiant train` tells its user about a run, as an observer of the TrainingSession: the
// opening lines (scene, views, threads, model), the progress bar and validation lines while it
// steps, and at the end the JSON report (DESIGN §1) and the summary. Only rank 0 speaks; every
// rank takes part in the collectives that gather the report's per-rank phases.
#pragma once

#include <optional>
#include <string>

#include "app/jobs.h"
#include "core/progress.h"
#include "core/report.h"
#include "parallel/communicator.h"
#include "train/training_session.h"

namespace radiant {

struct TrainRunInfo {
    std::string transforms_path, snapshot_path, val_name;
    size_t all_views = 0;  // training views over all ranks
    size_t val_views = 0;  // views of the final validation
    double staging_seconds = 0;
    std::string space_note;  // which space a new model chose, and why (empty when resuming)
};

class TrainReporter {
  public:
    TrainReporter(const TrainOptions& o, const TrainRunInfo& info, const TrainingSession& session,
                  Communicator& comm);
    // The opening lines (rank 0).
    void start(const TrainingSession& session, const ImageSet& images, int threads);
    void message(const std::string& line) { m_progress.message(line); }
    // After each step: the progress bar, and a line when a validation fell due.
    void step(const TrainingSession::StepResult& r, const TrainingSession& session);
    // Ends the progress bar.
    void finish() { m_progress.finish(m_state); }
    // The report and summary once the run ended (collective). `stopped_by`: 0, the signal, or
    // -1 for --stop-at-step. `val_psnr`: the final validation, when the run was not stopped.
    void end(const TrainingSession& session, int stopped_by, std::optional<double> val_psnr,
             int threads);

  private:
    const TrainOptions& m_options;
    TrainRunInfo m_info;
    Communicator& m_comm;
    Progress m_progress;
    ProgressState m_state;
};

}  // namespace radiant

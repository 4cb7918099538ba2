// Progress display for long jobs.
//
// On a terminal: one line redrawn in place with a bar, step, loss, PSNR (when known),
// samples/s and ETA. Otherwise (logs, CI): a plain line every `plain_interval_s` seconds.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "core/timer.h"

namespace radiant {

struct ProgressState {
    uint64_t step = 0;
    std::optional<double> loss;  // shown when set
    std::optional<double> psnr;
    double samples_per_second = 0.0;  // shown when positive
};

class Progress {
  public:
    // `total_steps` = 0 and `total_seconds` = 0 means unknown; ETA uses whichever is set.
    Progress(std::string label, uint64_t total_steps, double total_seconds,
             double plain_interval_s = 5.0, std::string unit = "step");
    // Cheap to call every step: redraws at most ~10 times a second.
    void update(const ProgressState& s);
    // Prints a line that does not get overwritten (e.g. an evaluation result).
    void message(const std::string& text);
    void finish(const ProgressState& s);
    // Draws and prints nothing (e.g. on MPI ranks other than 0).
    void set_silent(bool silent) { m_silent = silent; }

  private:
    void draw(const ProgressState& s, bool final_line);

    std::string m_label, m_unit;
    uint64_t m_total_steps;
    double m_total_seconds;
    double m_plain_interval;
    bool m_tty;
    bool m_silent = false;
    Timer m_timer;
    double m_last_draw = -1e9;
};

}  // namespace radiant

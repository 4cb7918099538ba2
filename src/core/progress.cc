#include "core/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/system.h"

namespace radiant {

namespace {
std::string format_duration(double s) {
    if (!std::isfinite(s) || s < 0) return "--:--";
    auto total = static_cast<long>(s + 0.5);
    if (total >= 3600)
        return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
    return fmt::format("{:02}:{:02}", total / 60, total % 60);
}

std::string format_rate(double r) {
    if (r >= 1e6) return fmt::format("{:.2f}M", r / 1e6);
    if (r >= 1e3) return fmt::format("{:.1f}k", r / 1e3);
    return fmt::format("{:.0f}", r);
}
}  // namespace

Progress::Progress(std::string label, uint64_t total_steps, double total_seconds,
                   double plain_interval_s, std::string unit)
    : m_label(std::move(label)),
      m_unit(std::move(unit)),
      m_total_steps(total_steps),
      m_total_seconds(total_seconds),
      m_plain_interval(plain_interval_s),
      m_tty(stderr_is_tty()) {}

void Progress::update(const ProgressState& s) {
    double now = m_timer.seconds();
    double interval = m_tty ? 0.1 : m_plain_interval;
    if (now - m_last_draw < interval) return;
    m_last_draw = now;
    draw(s, false);
}

void Progress::message(const std::string& text) {
    if (m_silent) return;
    if (m_tty) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "%s\n", text.c_str());
    m_last_draw = -1e9;  // redraw the bar on the next update
}

void Progress::finish(const ProgressState& s) { draw(s, true); }

void Progress::draw(const ProgressState& s, bool final_line) {
    if (m_silent) return;
    double elapsed = m_timer.seconds();
    double fraction = 0.0;
    if (m_total_steps > 0) fraction = static_cast<double>(s.step) / m_total_steps;
    if (m_total_seconds > 0) fraction = std::max(fraction, elapsed / m_total_seconds);
    fraction = std::clamp(fraction, 0.0, 1.0);
    double eta = fraction > 0 ? elapsed * (1.0 - fraction) / fraction : NAN;

    std::string stats = fmt::format("{} {}", m_unit, s.step);
    if (m_total_steps > 0) stats += fmt::format("/{}", m_total_steps);
    if (s.loss) stats += fmt::format("  loss {:.3e}", *s.loss);
    if (s.psnr) stats += fmt::format("  psnr {:.2f} dB", *s.psnr);
    if (s.samples_per_second > 0)
        stats += fmt::format("  {} samples/s", format_rate(s.samples_per_second));
    stats += fmt::format("  {} elapsed", format_duration(elapsed));
    if (!final_line) stats += fmt::format("  eta {}", format_duration(eta));

    if (m_tty) {
        constexpr int kBar = 24;
        int filled = static_cast<int>(fraction * kBar + 0.5);
        std::string bar(filled, '#');
        bar.resize(kBar, '.');
        std::fprintf(stderr, "\r\033[K%s [%s] %3.0f%%  %s%s", m_label.c_str(), bar.c_str(),
                     fraction * 100.0, stats.c_str(), final_line ? "\n" : "");
    } else {
        std::fprintf(stderr, "%s %3.0f%%  %s\n", m_label.c_str(), fraction * 100.0, stats.c_str());
    }
    std::fflush(stderr);
}

}  // namespace radiant

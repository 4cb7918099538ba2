// Wall-clock timing for progress reports and benchmarks (never for test assertions).
#pragma once

#include <chrono>

namespace radiant {

class Timer {
  public:
    Timer() : m_start(Clock::now()) {}
    void reset() { m_start = Clock::now(); }
    double seconds() const { return std::chrono::duration<double>(Clock::now() - m_start).count(); }

  private:
    using Clock = std::chrono::steady_clock;
    Clock::time_point m_start;
};

}  // namespace radiant

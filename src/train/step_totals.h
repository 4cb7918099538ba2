// A training step's counts, each rank's and their sums over ranks: gathered in rank order in
// one small exchange, so every rank sees the same numbers (and adapts every rank's ray budget
// the same way).
#pragma once

#include <cstddef>
#include <vector>

#include "parallel/communicator.h"

namespace radiant {

struct StepCounts {
    double loss = 0;     // summed squared error of the rays' colours
    double rays = 0;     // rays marched
    double samples = 0;  // samples marched
    double trained = 0;  // of them, in front of where their ray turned opaque
};

class StepTotals {
  public:
    explicit StepTotals(size_t ranks) : m_ranks(ranks) {}
    // This rank's counts of the step; collective when `comm` spans several ranks.
    void gather(Communicator* comm, const StepCounts& mine);
    const StepCounts& total() const { return m_total; }
    const StepCounts& rank(size_t r) const { return m_ranks[r]; }

  private:
    std::vector<StepCounts> m_ranks;
    StepCounts m_total;
};

}  // namespace radiant

// How many rays each rank traces in a step. A step aims at a fixed number of marched samples
// (NerfTrainConfig::target_samples), split over the ranks; each rank's ray count follows its own
// samples per ray, so ranks whose views cost more samples trace fewer rays and the ranks' work
// stays balanced.
#pragma once

#include <cstddef>
#include <vector>

namespace radiant {

// Rank r's part of a total split over `ranks` (the parts sum to the total).
inline size_t part_of(size_t total, size_t r, size_t ranks) {
    return total * (r + 1) / ranks - total * r / ranks;
}

class RayBudget {
  public:
    // Each rank traces at least its part of `min_rays` (one ray per chunk) and at most its part
    // of `target_samples` (one ray per target sample).
    RayBudget(size_t ranks, size_t initial_rays, size_t target_samples, size_t min_rays);

    size_t rays(size_t rank) const { return m_rank_rays[rank]; }
    const std::vector<size_t>& per_rank() const { return m_rank_rays; }
    size_t total() const;

    // A saved budget: `per_rank` when it holds one count per rank (and there are several),
    // else an even split of `total`.
    void restore(size_t total, const std::vector<size_t>& per_rank);
    // After a step in which `rank` traced `rays` rays and marched `samples` samples: its count
    // grows at most 2x a step towards the one whose samples meet its part of the target.
    void adapt(size_t rank, double rays, double samples);

  private:
    std::vector<size_t> m_rank_rays;
    size_t m_target, m_min;
};

}  // namespace radiant

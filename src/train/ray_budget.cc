#include "train/ray_budget.h"

#include <algorithm>

#include "core/error.h"

namespace radiant {

RayBudget::RayBudget(size_t ranks, size_t initial_rays, size_t target_samples, size_t min_rays)
    : m_target(target_samples), m_min(min_rays) {
    RD_CHECK(ranks > 0);
    for (size_t r = 0; r < ranks; ++r) m_rank_rays.push_back(part_of(initial_rays, r, ranks));
}

size_t RayBudget::total() const {
    size_t sum = 0;
    for (size_t r : m_rank_rays) sum += r;
    return sum;
}

void RayBudget::restore(size_t total, const std::vector<size_t>& per_rank) {
    const size_t ranks = m_rank_rays.size();
    const size_t clamped = std::clamp<size_t>(total, m_min, m_target);
    const bool each = per_rank.size() == ranks && ranks > 1;
    for (size_t r = 0; r < ranks; ++r)
        m_rank_rays[r] = each ? std::clamp<size_t>(per_rank[r], part_of(m_min, r, ranks),
                                                   part_of(m_target, r, ranks))
                              : part_of(clamped, r, ranks);
}

void RayBudget::adapt(size_t rank, double rays, double samples) {
    const size_t ranks = m_rank_rays.size();
    const double per_ray = std::max(samples, 1.0) / std::max(rays, 1.0);
    const size_t target = part_of(m_target, rank, ranks);
    const size_t want = size_t(double(target) / std::max(per_ray, 1.0));
    m_rank_rays[rank] = std::clamp<size_t>(std::min(want, 2 * m_rank_rays[rank]),
                                           part_of(m_min, rank, ranks), target);
}

}  // namespace radiant

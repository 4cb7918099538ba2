#include "train/step_totals.h"

namespace radiant {

void StepTotals::gather(Communicator* comm, const StepCounts& mine) {
    m_ranks[0] = m_total = mine;
    if (!comm || !comm->distributed()) return;
    constexpr size_t kFields = 4;
    const double fields[kFields] = {mine.loss, mine.rays, mine.samples, mine.trained};
    std::vector<double> all(kFields * m_ranks.size());
    comm->allgather(fields, kFields, all.data());
    m_total = {};
    for (size_t r = 0; r < m_ranks.size(); ++r) {
        const double* a = &all[kFields * r];
        m_ranks[r] = {a[0], a[1], a[2], a[3]};
        m_total.loss += a[0], m_total.rays += a[1], m_total.samples += a[2],
            m_total.trained += a[3];
    }
}

}  // namespace radiant

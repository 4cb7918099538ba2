#include "train/training_state.h"

#include <cstring>

#include "core/error.h"

namespace radiant {

using nlohmann::json;

namespace {

json history_to_json(const std::vector<HistoryPoint>& history) {
    json out = json::array();
    for (const HistoryPoint& p : history) {
        json j = {p.step, p.seconds, p.loss};
        if (p.psnr) j.push_back(*p.psnr);
        out.push_back(j);
    }
    return out;
}

std::vector<HistoryPoint> history_from_json(const json& j, const std::string& path) {
    std::vector<HistoryPoint> out;
    if (!j.is_array()) throw Error(path, "snapshot's training history is not a list");
    for (const auto& p : j) {
        if (!p.is_array() || p.size() < 3 || p.size() > 4 || !p[0].is_number_unsigned() ||
            !p[1].is_number() || !p[2].is_number() || (p.size() == 4 && !p[3].is_number()))
            throw Error(path, "snapshot's training history holds a malformed point");
        HistoryPoint h{p[0].get<uint64_t>(), p[1].get<double>(), p[2].get<double>(), std::nullopt};
        if (p.size() == 4) h.psnr = p[3].get<double>();
        out.push_back(h);
    }
    return out;
}

}  // namespace

SnapshotSection training_section(NerfTrainer& trainer, double seconds,
                                 const std::vector<HistoryPoint>& history) {
    Adam& adam = trainer.optimizer();
    SnapshotSection s;
    s.name = "training";
    s.header = {{"step", trainer.steps()},
                {"next_rays", trainer.next_ray_count()},
                {"seed", trainer.config().seed},
                {"optimizer_steps", adam.steps_taken()},
                {"seconds", seconds},
                {"history", history_to_json(history)}};
    if (trainer.rank_ray_counts().size() > 1) s.header["rank_rays"] = trainer.rank_ray_counts();
    s.blocks = {
        {"adam_m", adam.first_moment().data(), adam.first_moment().size() * sizeof(float)},
        {"adam_v", adam.second_moment().data(), adam.second_moment().size() * sizeof(float)}};
    return s;
}

RestoredTraining restore_training_state(const SnapshotFile& file, NerfTrainer& trainer) {
    const json& h = file.header();
    if (!h.contains("training"))
        throw Error(
            file.path(),
            "snapshot has no optimiser state to resume from (it was saved for rendering only)");
    const json& t = h["training"];
    Adam& adam = trainer.optimizer();
    auto m = file.block("adam_m", adam.first_moment().size() * sizeof(float));
    auto v = file.block("adam_v", adam.second_moment().size() * sizeof(float));
    std::memcpy(adam.first_moment().data(), m.data(), m.size());
    std::memcpy(adam.second_moment().data(), v.data(), v.size());
    adam.set_steps_taken(snapshot_field<uint64_t>(t, "optimizer_steps", file.path(), "training"));
    // Each rank's ray count, when the run had several ranks; a different rank count starts
    // from an even split of the total instead (and re-balances within a few steps).
    std::vector<size_t> rank_rays;
    if (t.contains("rank_rays") && t["rank_rays"].is_array())
        for (const json& r : t["rank_rays"])
            if (r.is_number_unsigned()) rank_rays.push_back(r.get<size_t>());
    trainer.restore_progress(snapshot_field<uint64_t>(t, "step", file.path(), "training"),
                             snapshot_field<size_t>(t, "next_rays", file.path(), "training"),
                             rank_rays);
    RestoredTraining out;
    // Snapshots from before the session kept no clock: their time starts again at zero.
    if (t.contains("seconds")) {
        if (!t["seconds"].is_number() || !(t["seconds"].get<double>() >= 0))
            throw Error(file.path(), "snapshot's training seconds are not a non-negative number");
        out.seconds = t["seconds"].get<double>();
    }
    if (t.contains("history")) out.history = history_from_json(t["history"], file.path());
    return out;
}

}  // namespace radiant

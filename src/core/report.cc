#include "core/report.h"

#include "core/system.h"

namespace radiant {

nlohmann::json Report::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    j["command"] = command;
    if (psnr) j["psnr"] = *psnr;
    if (ssim) j["ssim"] = *ssim;
    j["steps"] = steps;
    j["seconds"] = seconds;
    j["samples_per_second"] = samples_per_second;
    j["rays_per_second"] = rays_per_second;
    j["threads"] = threads;
    j["peak_rss_mb"] = peak_rss_mb;
    auto h = nlohmann::json::array();
    for (const auto& p : history) {
        nlohmann::json e = {{"step", p.step}, {"seconds", p.seconds}, {"loss", p.loss}};
        if (p.psnr) e["psnr"] = *p.psnr;
        h.push_back(std::move(e));
    }
    j["history"] = std::move(h);
    for (const auto& [k, v] : extra.items()) j[k] = v;
    return j;
}

void Report::write(const std::string& path) const {
    write_file_atomic(path, to_json().dump(2) + "\n");
}

}  // namespace radiant

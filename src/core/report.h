// The `--report` JSON of DESIGN §1: one object per command run.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace radiant {

struct HistoryPoint {
    uint64_t step = 0;
    double seconds = 0.0;  // training wall time so far (evaluation excluded)
    double loss = 0.0;
    std::optional<double> psnr;  // dB, when an evaluation ran at this point
};

struct Report {
    std::string command;
    std::optional<double> psnr;  // mean over evaluated images, dB
    std::optional<double> ssim;
    uint64_t steps = 0;
    double seconds = 0.0;  // training wall time, evaluation excluded
    double samples_per_second = 0.0;
    double rays_per_second = 0.0;
    int threads = 1;
    double peak_rss_mb = 0.0;
    std::vector<HistoryPoint> history;
    nlohmann::json extra = nlohmann::json::object();  // command-specific fields

    nlohmann::json to_json() const;
    // Writes atomically (temporary file + rename).
    void write(const std::string& path) const;
};

}  // namespace radiant

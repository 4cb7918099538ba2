#include "app/cli_util.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/error.h"
#include "core/system.h"
#include "nn/amx.h"

namespace radiant {

namespace fs = std::filesystem;

void check_output_path(const std::string& path, const char* option) {
    if (path.empty()) return;
    fs::path p(path);
    std::error_code ec;
    if (fs::is_directory(p, ec))
        throw Error(path, fmt::format("{} names a folder; give a file path", option));
    auto parent = p.parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec))
        throw Error(path, fmt::format("{}: folder '{}' does not exist", option, parent.string()));
    // Writes go through a temporary file in the same folder, so that is what must work: probe it
    // (access() is not enough: it says yes to root on a read-only mount's folder).
    if (const std::string why = folder_write_problem(parent.empty() ? "." : parent.string());
        !why.empty())
        throw Error(path, fmt::format("{}: cannot write in folder '{}': {}", option,
                                      parent.empty() ? "." : parent.string(), why));
}

void make_output_dir(const std::string& path, const char* option) {
    std::error_code ec;
    if (fs::exists(path, ec) && !fs::is_directory(path, ec))
        throw Error(path, fmt::format("{}: a file is in the way of this folder", option));
    fs::create_directories(path, ec);
    if (ec) throw Error(path, fmt::format("{}: cannot create folder: {}", option, ec.message()));
}

std::optional<std::vector<double>> parse_number_list(const std::string& text, size_t count) {
    std::vector<double> values;
    std::stringstream ss(text);
    std::string part;
    while (std::getline(ss, part, ',')) {
        char* end = nullptr;
        const double v = std::strtod(part.c_str(), &end);
        if (values.size() >= count || part.empty() || *end != '\0' || !std::isfinite(v))
            return std::nullopt;
        values.push_back(v);
    }
    if (values.size() != count) return std::nullopt;
    return values;
}

std::array<float, 3> parse_background(const std::string& text) {
    if (text == "white") return {1, 1, 1};
    if (text == "black") return {0, 0, 0};
    const auto v = parse_number_list(text, 3);
    if (!v || std::any_of(v->begin(), v->end(), [](double c) { return !(c >= 0.0 && c <= 1.0); }))
        throw Error("--background",
                    fmt::format("'{}' is not white, black or R,G,B with values in [0, 1]", text));
    return {float((*v)[0]), float((*v)[1]), float((*v)[2])};
}

namespace {
std::atomic<int> g_stop{0};
struct sigaction g_old_int, g_old_term;
void on_stop_signal(int sig) { g_stop.store(sig); }
}  // namespace

StopSignals::StopSignals() {
    g_stop.store(0);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_old_int);
    sigaction(SIGTERM, &sa, &g_old_term);
}

StopSignals::~StopSignals() {
    sigaction(SIGINT, &g_old_int, nullptr);
    sigaction(SIGTERM, &g_old_term, nullptr);
}

int StopSignals::requested() { return g_stop.load(); }

bool have_program(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return false;
    std::stringstream ss(path);
    std::string dir;
    while (std::getline(ss, dir, ':')) {
        std::error_code ec;
        const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
        if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return true;
    }
    return false;
}

void add_render_precision_option(CLI::App& cmd, std::string& precision) {
    cmd.add_option("--precision", precision,
                   "MLP matrix products while rendering: fp32 (for a snapshot trained in fp32, the "
                   "same pixels as "
                   "training's validation); bf16 (fp32 accumulation) on Intel AMX or AVX512-BF16, "
                   "fp32 on CPUs with "
                   "neither; auto: bf16 wherever the CPU has either (about 10% faster frames, PSNR "
                   "within 0.001 dB on "
                   "lego-800)")
        ->check(CLI::IsMember({"fp32", "bf16", "auto"}))
        ->capture_default_str();
}

MlpPrecision render_precision(const std::string& flag) {
    if (flag == "fp32") return MlpPrecision::kFp32;
    if (flag == "bf16") return MlpPrecision::kBf16;
    RD_CHECK_MSG(flag == "auto", "--precision must be fp32, bf16 or auto");
    return amx::available() ? MlpPrecision::kBf16 : MlpPrecision::kFp32;
}

}  // namespace radiant

// Helpers shared by the subcommands: output-path checks, colour options, stop signals.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "nn/mlp.h"

namespace CLI {
class App;
}

namespace radiant {

// Fails before any work if a file output could not be written later (folder missing or not
// writable, e.g. read-only, or the path names a folder). `option` names the flag in the message.
void check_output_path(const std::string& path, const char* option);

// Creates an output folder (and its parents); Error if that fails or a file is in the way.
void make_output_dir(const std::string& path, const char* option);

// Exactly `count` comma-separated finite numbers, or nothing.
std::optional<std::vector<double>> parse_number_list(const std::string& text, size_t count);

// "white", "black", or "R,G,B" with components in [0, 1].
std::array<float, 3> parse_background(const std::string& text);

// Ctrl-C (SIGINT) and SIGTERM set a flag instead of killing the process while an instance is
// alive, so a long job can save its state and exit cleanly; the old handlers come back after.
class StopSignals {
  public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    // 0 while no stop was requested, else the signal number.
    static int requested();
};

// --precision of the commands that render a snapshot (eval, render, view): "fp32", "bf16" or
// "auto" (bf16 wherever the CPU has AVX512-BF16 or AMX: ~10% faster frames, PSNR within
// 0.001 dB on lego-800). fp32 renders a snapshot trained in fp32 (what train's auto picks
// without AMX) exactly as training's validation did.
void add_render_precision_option(CLI::App& cmd, std::string& precision);
MlpPrecision render_precision(const std::string& flag);

// Whether an executable is on PATH (e.g. ffmpeg for MP4 output).
bool have_program(const std::string& name);

}  // namespace radiant

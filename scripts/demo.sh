#!/usr/bin/env bash
# Installs dependencies (idempotent), builds Radiant and runs the main job on built-in data:
# `radiant demo` writes a small analytic scene, trains a NeRF on it, scores held-out views and
# renders an orbit, all under out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target radiant
./build/radiant demo --out-dir out/demo "$@"

#!/usr/bin/env bash
# Installs dependencies (idempotent), builds Radiant and runs the main job on built-in data:
# fit-image learns a procedural 1024x1024 test pattern and writes what it learnt to out/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target radiant
mkdir -p out
./build/radiant fit-image --steps 1000 --out out/reconstruction.png --report out/fit-image.json "$@"

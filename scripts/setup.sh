#!/usr/bin/env bash
# Installs every Debian 12 package Radiant needs to build, test and benchmark.
# Idempotent: packages already present are left alone. Run as root (or with sudo).
set -euo pipefail

packages=(
    build-essential cmake pkg-config
    libhwy-dev            # portable SIMD with runtime dispatch (Highway 1.0.3)
    libpng-dev libjpeg62-turbo-dev
    nlohmann-json3-dev libcli11-dev libfmt-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    colmap                # camera poses from photos (radiant prepare), CPU SIFT and mapper
    ffmpeg                # video frames in (prepare), MP4 out (render)
    libmeshoptimizer-dev  # mesh simplification (export-mesh --simplify)
    assimp-utils          # an independent mesh reader for the tests (assimp info)
)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#packages[@]} packages already installed"
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

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
    libcpp-httplib-dev    # the web viewer's HTTP server (radiant view, train --view)
    chromium              # headless browser for the viewer's browser test
    jq                    # the time-to-quality benchmark's table (bench/time_to_quality.sh)
    clang libclang-rt-14-dev  # libFuzzer + ASan/UBSan runtimes for the loaders' fuzzers (scripts/fuzz.sh)
    clang-format          # the format check of scripts/test.sh (scripts/format.sh)
    libopenmpi-dev openmpi-bin  # data-parallel training across ranks (mpirun -np N radiant train)
)
# Node.js and npm drive the browser test (puppeteer-core); any Node >= 18 will do, so a Node
# that is already installed (e.g. NodeSource's, which bundles npm) is kept.
command -v npm > /dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#packages[@]} packages already installed"
else
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# puppeteer-core for the browser test, pinned by tests/browser/package-lock.json; it drives
# Debian's chromium and downloads no browser. Only reinstalled when the lock file changes. Without
# the npm registry the browser test skips with a message; nothing else needs it.
browser_dir="$(dirname "$0")/../tests/browser"
if [ ! -f "$browser_dir/node_modules/.package-lock.json" ] ||
   [ "$browser_dir/package-lock.json" -nt "$browser_dir/node_modules/.package-lock.json" ]; then
    echo "setup: npm ci in tests/browser (puppeteer-core)"
    (cd "$browser_dir" && npm ci --no-audit --no-fund --loglevel=error) ||
        echo "setup: npm ci failed; the browser test will skip"
fi

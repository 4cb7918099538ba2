#!/usr/bin/env bash
# Installs dependencies (idempotent), checks the sources' format (scripts/format.sh), builds
# everything in Release (the build checks the folders' layering) and runs the whole test suite;
# then the suite again under ASan + UBSan in a Debug build, and every fuzzer for 20 s.
#   bash scripts/test.sh           all three stages (what CI runs)
#   bash scripts/test.sh --quick   the Release suite only
# Tests that need ../shared/data skip with a message when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
case "${1:-}" in
    --quick) quick=1 ;;
    "") ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac
bash scripts/setup.sh
bash scripts/format.sh --check
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
[ "$quick" = 1 ] && exit 0
echo "test: stage 2 of 3, the suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-san/)"
bash scripts/test_sanitized.sh
echo "test: stage 3 of 3, every fuzzer for 20 s (build-fuzz/)"
bash scripts/fuzz.sh 20

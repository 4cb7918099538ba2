#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/, RADIANT_FUZZ=ON, clang with ASan + UBSan) in
# build-fuzz/ and runs each for SECONDS seconds (default 20), one after another.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# Each harness fuzzes a working copy of its seeds (build-fuzz/corpus/<harness>, grown from
# fuzz/corpus/<harness>, which is never written to); what it finds goes to
# build-fuzz/artifacts/<harness>/ (crash-*, leak-*, timeout-*, oom-*) and its output to
# build-fuzz/logs/<harness>.log. Exits 1 if any harness found something, after a one-line
# summary per harness. Skips (exit 0) where clang++ or libFuzzer's runtime is missing
# (bash scripts/setup.sh installs both).
#
# Environment: FUZZ_HARNESSES="png jpeg" runs only those; FUZZ_JOBS (default 2) build jobs;
# FUZZ_RSS_MB (default 2048) libFuzzer's memory limit; FUZZ_EXTRA extra libFuzzer flags.
# Reproduce a finding: build-fuzz/fuzz/fuzz_<harness> build-fuzz/artifacts/<harness>/crash-...
set -euo pipefail

seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
    echo "usage: $0 [SECONDS]   (whole seconds per harness, default 20)" >&2
    exit 2
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build-fuzz"
harnesses=(${FUZZ_HARNESSES:-transforms png jpeg image snapshot colmap mesh render_request camera_path})
rss_mb="${FUZZ_RSS_MB:-2048}"

# clang++ and libFuzzer's runtime (libclang-rt-14-dev on Debian 12): skip cleanly without them.
cxx="${FUZZ_CXX:-$(command -v clang++ || true)}"
if [ -z "$cxx" ]; then
    echo "fuzz: clang++ not found; skipping (bash scripts/setup.sh installs clang)"
    exit 0
fi
probe="$(mktemp -d)"
trap 'rm -rf "$probe"' EXIT
printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' > "$probe/p.cc"
if ! "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cc" -o "$probe/p" > "$probe/log" 2>&1; then
    echo "fuzz: $cxx cannot link -fsanitize=fuzzer (libFuzzer runtime missing: libclang-rt-14-dev); skipping"
    sed 's/^/fuzz:   /' "$probe/log" | head -5
    exit 0
fi

# Configure (once; later builds re-run CMake themselves when a CMakeLists.txt changes) and build.
start=$(date +%s)
mkdir -p "$build"
if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DRADIANT_FUZZ=ON -DRADIANT_BUILD_TESTS=OFF \
        -DRADIANT_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$build/configure.log" 2>&1 ||
        { cat "$build/configure.log"; exit 1; }
fi
cmake --build "$build" --target fuzzers -j "${FUZZ_JOBS:-2}" > "$build/build.log" 2>&1 ||
    { tail -50 "$build/build.log"; echo "fuzz: build failed (full log: $build/build.log)"; exit 1; }
echo "fuzz: harnesses built in $(($(date +%s) - start)) s; ${seconds} s each: ${harnesses[*]}"

# Undefined behaviour already aborts (-fno-sanitize-recover); show where it happened.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

failed=0
summary=()
for h in "${harnesses[@]}"; do
    bin="$build/fuzz/fuzz_$h"
    seeds="$root/fuzz/corpus/$h"
    corpus="$build/corpus/$h"
    artifacts="$build/artifacts/$h"
    log="$build/logs/$h.log"
    if [ ! -x "$bin" ]; then
        echo "fuzz: no harness '$h' ($bin)" >&2
        exit 2
    fi
    mkdir -p "$corpus" "$build/logs"
    rm -rf "$artifacts" && mkdir -p "$artifacts"
    [ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
    dict=()
    [ -f "$root/fuzz/dicts/$h.dict" ] && dict=(-dict="$root/fuzz/dicts/$h.dict")
    echo "fuzz: $h ..."
    rc=0
    # shellcheck disable=SC2086
    "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -rss_limit_mb="$rss_mb" -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" ${FUZZ_EXTRA:-} > "$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    files=$(find "$corpus" -type f | wc -l)
    found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
    if [ -n "$found" ] || [ "$rc" -ne 0 ]; then
        failed=1
        result="FOUND (exit $rc)"
        echo "fuzz: $h found a problem (exit $rc); log $log"
        grep -m3 -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|fuzz: assertion|SUMMARY:' "$log" |
            sed 's/^/fuzz:   /' || true
        for a in $found; do
            echo "fuzz:   artifact $a"
            result="$result $(basename "$a")"
        done
    else
        result="ok"
    fi
    summary+=("$(printf '%-15s execs %9s  cov %5s  corpus %5s  %s' "$h" "${execs:-?}" "${cov:-?}" "$files" "$result")")
done

echo "fuzz: summary (${seconds} s per harness, $(($(date +%s) - start)) s in all)"
for line in "${summary[@]}"; do echo "  $line"; done
if [ "$failed" -ne 0 ]; then
    echo "fuzz: FAILED: inputs under $build/artifacts/ reproduce it (build-fuzz/fuzz/fuzz_<harness> FILE)"
    exit 1
fi
echo "fuzz: all harnesses clean"

#!/usr/bin/env bash
# The test suite again in a Debug build (assertions on) with AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-san/. Run by scripts/test.sh after the Release suite.
#
# Optimised at -O1, as the sanitizers' own docs advise: GCC 12 at -O0 reports a false
# stack-buffer-overflow on AVX-512 vector temporaries (clang -O0 and GCC -O1 do not).
# The end-to-end tests that train for tens of seconds in Release (COLMAP runs, the shared-data
# PSNR checks, mesh exports, the demo, the SIGKILL soak, the browser) are left to the Release
# run: under the sanitizers they would take most of CI's time for no new code paths.
set -euo pipefail
cd "$(dirname "$0")/.."
# So are three that take minutes under the sanitizers and whose code the others cover: the
# resume-equals-uninterrupted CLI run (TrainingSession/ModelSnapshot resume tests stay), the
# fit-image PSNR run and the camera-path render.
slow='PrepareColmap\.|SharedData\.|MeshExport\.|CliNerf\.DemoRunsEndToEnd|CrashSafety\.TwentySigkills|Browser\.|NerfTrainer\.LearnsAnAnalyticBall|CliPrepare\.'
slow+='|CliNerf\.InterruptedThenResumedEqualsUninterrupted|FitImage\.TestPatternReachesPsnrInFixedSteps|CameraPath\.RenderPathWritesItsFrames'
# Runs under mpirun: OpenMPI's own start-up allocations, never freed, read as leaks to LeakSanitizer.
# The collectives and the image split stay covered by their one-rank tests here.
slow+='|MpiTrain\.|Mpi\.CollectivesOnThreeRanks'
cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" -DRADIANT_SANITIZE=ON \
    -DRADIANT_BUILD_BENCH=OFF > /dev/null
cmake --build build-san -j "$(nproc)"
# Any undefined behaviour or leak fails its test.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
ctest --test-dir build-san --output-on-failure -j "$(nproc)" -E "$slow"

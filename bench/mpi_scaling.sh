#!/usr/bin/env bash
# Strong and weak scaling of `radiant train` over MPI ranks on this machine (issue 12's protocol):
#   bash bench/mpi_scaling.sh [OUT_DIR]
# Strong: lego-200 at the default 2^17 samples per step, 1 rank x 1 thread against 2 ranks x 1
# thread (same total samples per step), for every optimiser/wire choice: step time, speed-up,
# and each phase's share of rank 0's step. Quality: the same pair trained for QUALITY_STEPS and
# scored on the 10 lego validation views. Weak: 2^16 samples per rank (1 rank: 2^16, 2 ranks:
# 2^17 in all). Runs alternate 1 and 2 ranks so the VM's drift hits both alike.
# Environment: LEGO (default ../shared/data/lego), BIN (build/radiant), STEPS (200),
# QUALITY_STEPS (1500; 0 skips the quality pair).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-out/mpi-scaling}"
lego="${LEGO:-../shared/data/lego}"
bin="${BIN:-build/radiant}"
steps="${STEPS:-200}"
quality_steps="${QUALITY_STEPS:-1500}"
[ -f "$lego/transforms_train.json" ] || { echo "mpi_scaling: no lego scene at $lego" >&2; exit 2; }
command -v mpirun > /dev/null || { echo "mpi_scaling: mpirun is not installed (scripts/setup.sh)" >&2; exit 2; }
command -v jq > /dev/null || { echo "mpi_scaling: jq is not installed (scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$out"
mpi=(mpirun --oversubscribe --allow-run-as-root -np 2)
common=(train "$lego" --downscale 4 --threads 1 --val-every 0 --checkpoint-every 0)

# run NAME RANKS ARGS...: trains, leaves $out/NAME.json
run() {
    local name=$1 ranks=$2
    shift 2
    local cmd=("$bin" "${common[@]}" --snapshot "$out/$name.radiant" --report "$out/$name.json" "$@")
    [ "$ranks" -gt 1 ] && cmd=("${mpi[@]}" "${cmd[@]}")
    echo "mpi_scaling: $name: ${cmd[*]}" >&2
    "${cmd[@]}" > "$out/$name.log" 2>&1 || { tail -5 "$out/$name.log" >&2; exit 1; }
}

# step_ms NAME: training milliseconds per step
step_ms() { jq '.seconds / .steps * 1000' "$out/$1.json"; }
# shares NAME: rank 0's phases as percentages of its step time
shares() {
    jq -r '.phase_seconds[0] as $p | ($p.grid + $p.chunks + $p.encoding + $p.gradients + $p.exchange + $p.optimizer) as $t |
        [$p.chunks + $p.encoding, $p.gradients, $p.grid, $p.optimizer, $p.exchange] | map(. / $t * 100 | floor | tostring + "%") |
        join(" | ")' "$out/$1.json"
}

run strong-1 1 --steps "$steps"
for opt in sharded replicated; do
    for wire in fp32 bf16; do
        run "strong-2-$opt-$wire" 2 --steps "$steps" --mpi-optimizer "$opt" --mpi-wire "$wire"
    done
    # The default (sharded, fp32) shares the step's work in shared memory; the same with each
    # rank training its own samples, and with messages.
    if [ "$opt" = sharded ]; then
        run strong-2-sharded-fp32-samples 2 --steps "$steps" --mpi-split samples
        run strong-2-sharded-fp32-messages 2 --steps "$steps" --mpi-exchange messages
    fi
    run "strong-1-again-$opt" 1 --steps "$steps"
done
run weak-1 1 --steps "$steps" --target-samples 65536
run weak-2 2 --steps "$steps" --target-samples 131072
if [ "$quality_steps" -gt 0 ]; then
    run quality-1 1 --steps "$quality_steps" --val "$lego/transforms_val.json"
    run quality-2 2 --steps "$quality_steps" --val "$lego/transforms_val.json"
fi

{
    base=$(jq -n "($(step_ms strong-1) + $(step_ms strong-1-again-sharded) + $(step_ms strong-1-again-replicated)) / 3")
    echo "Strong scaling, lego-200, 2^17 samples per step in all, $steps steps; 1 rank x 1 thread: $(printf %.1f "$base") ms/step (mean of 3 runs)"
    echo
    echo "| ranks x threads | Adam | gradients | ms/step | speed-up | chunks | gradients | grid | Adam | exchange |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    echo "| 1 x 1 | whole | - | $(printf %.1f "$base") | 1.00x | $(shares strong-1) |"
    for n in strong-2-sharded-fp32 strong-2-sharded-fp32-samples strong-2-sharded-fp32-messages strong-2-sharded-bf16 \
        strong-2-replicated-fp32 strong-2-replicated-bf16; do
        how=$(jq -r '.mpi_optimizer + " | " + (if .mpi_exchange == "shared memory" then "fp32, shared memory, " + .mpi_split + " split" else .mpi_wire + " messages" end)' "$out/$n.json")
        ms=$(step_ms "$n")
        echo "| 2 x 1 | $how | $(printf %.1f "$ms") | $(jq -n "$base / $ms * 100 | floor / 100")x | $(shares "$n") |"
    done
    echo
    w1=$(step_ms weak-1)
    w2=$(step_ms weak-2)
    echo "Weak scaling, 2^16 samples per rank: 1 rank $(printf %.1f "$w1") ms/step, 2 ranks $(printf %.1f "$w2") ms/step," \
        "efficiency $(jq -n "$w1 / $w2 * 100 | floor")%"
    if [ "$quality_steps" -gt 0 ]; then
        echo
        echo "Quality after $quality_steps steps (the 10 validation views, white background):" \
            "1 rank $(jq '.psnr * 100 | floor / 100' "$out/quality-1.json") dB in $(jq '.seconds | floor' "$out/quality-1.json") s," \
            "2 ranks $(jq '.psnr * 100 | floor / 100' "$out/quality-2.json") dB in $(jq '.seconds | floor' "$out/quality-2.json") s"
    fi
} | tee "$out/table.md"

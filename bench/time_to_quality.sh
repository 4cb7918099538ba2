#!/usr/bin/env bash
# Time-to-quality protocol of issue 8, run end to end: trains each benchmark scene for its time
# budget with default settings, scores held-out views at fixed training times, and writes
#   OUT/time_to_quality.md   the table: PSNR reached at each checkpoint beside the target
#   OUT/curves.svg           PSNR over training time, every run side by side (radiant plot)
#   OUT/<run>.json           the train reports; OUT/<run>.log their output
#
#   bash bench/time_to_quality.sh [OUT] [RUN...]       runs: lego200 lego800 fox (default: all)
#
# lego200: --downscale 4, 60 s, 10 val views. lego800: 600 s, PSNR at 60/180/300 s on 3 val views
# (short pauses), at 600 s on all 10. fox: --downscale 4, 120 s, the 5 photos --holdout-every 8
# leaves out. About 15 minutes for all three plus the evaluations, on 2 cores. Run on an
# otherwise idle machine: the numbers are seconds of training. TTQ_TABLE_ONLY=1 only remakes the
# table and the plot from the reports already in OUT. Needs ../shared/data, a Release
# build in build/ (bash scripts/test.sh or scripts/demo.sh makes one) and jq.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/out/time-to-quality}"
shift || true
runs=("$@")
[ ${#runs[@]} -eq 0 ] && runs=(lego200 lego800 fox)
radiant="$root/build/radiant"
data="$root/../shared/data"
[ -x "$radiant" ] || { echo "time_to_quality: $radiant not built (bash scripts/demo.sh builds it)" >&2; exit 2; }
[ -d "$data/lego" ] && [ -d "$data/fox" ] || { echo "time_to_quality: $data/lego and $data/fox are needed" >&2; exit 2; }
command -v jq > /dev/null || { echo "time_to_quality: jq is needed (bash scripts/setup.sh installs it)" >&2; exit 2; }
mkdir -p "$out"

# run NAME TARGETS ARGS...: TARGETS is "seconds:dB ..." (the issue's goals, shown beside the result).
declare -A targets
train() {
    local name="$1" goal="$2"
    shift 2
    targets[$name]="$goal"
    [ -n "${TTQ_TABLE_ONLY:-}" ] && return  # remake the table and plot from the reports in OUT
    echo "time_to_quality: $name: radiant train $*" >&2
    "$radiant" train "$@" --checkpoint-every 0 --snapshot "$out/$name.radiant" --report "$out/$name.json" \
        > "$out/$name.log" 2>&1 || { tail -5 "$out/$name.log" >&2; exit 1; }
    tail -3 "$out/$name.log" >&2
}
for run in "${runs[@]}"; do
    case "$run" in
        lego200) train lego200 "60:30" "$data/lego" --downscale 4 --seconds 60 \
                     --val "$data/lego/transforms_val.json" --val-every 0 --val-at 15,30 --val-views 10 ;;
        lego800) train lego800 "180:30 600:32" "$data/lego" --seconds 600 \
                     --val "$data/lego/transforms_val.json" --val-every 0 --val-at 60,180,300 --val-views 3 ;;
        fox) train fox "120:27.5" "$data/fox" --downscale 4 --holdout-every 8 --seconds 120 \
                 --val-every 0 --val-at 30,60 --val-views 5 ;;
        *) echo "time_to_quality: unknown run '$run' (lego200, lego800, fox)" >&2; exit 2 ;;
    esac
done

table="$out/time_to_quality.md"
{
    echo "| run | PSNR at training time | targets: reached? | steps | samples/s | peak RSS |"
    echo "| --- | --- | --- | --- | --- | --- |"
    for run in "${runs[@]}"; do
        report="$out/$run.json"
        points=$(jq -r '[.history[] | select(.psnr != null) | "\(.seconds | floor) s: \(.psnr * 100 | round / 100) dB"] | join(", ")' "$report")
        verdicts=""
        for goal in ${targets[$run]}; do
            t="${goal%%:*}" db="${goal##*:}"
            # The last evaluation at or before the target time (5% slack for when it ran).
            got=$(jq -r --argjson t "$t" '[.history[] | select(.psnr != null and .seconds <= $t * 1.05)] | last | .psnr // 0' "$report")
            met=$(jq -rn --argjson got "$got" --argjson db "$db" 'if $got >= $db then "yes" else "no" end')
            verdicts+="$db dB at $t s: $met ($(printf '%.2f' "$got")); "
        done
        jq -r --arg run "$run" --arg points "$points" --arg met "${verdicts%; }" \
            '"| \($run) | \($points) | \($met) | \(.steps) | \(.samples_per_second / 1000 | round) k | \(.peak_rss_mb | round) MiB |"' \
            "$report"
    done
} > "$table"
reports=() labels=()
for run in "${runs[@]}"; do reports+=("$out/$run.json"); labels+=("$run"); done
"$radiant" plot "${reports[@]}" --labels "$(IFS=,; echo "${labels[*]}")" --title "Radiant time to quality" \
    --out "$out/curves.svg" > /dev/null
cat "$table"
echo "time_to_quality: table $table, curves $out/curves.svg" >&2

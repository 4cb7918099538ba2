#!/usr/bin/env bash
# A model of data-parallel step time at 8, 64 and 512 ranks (one rank per socket), from numbers
# measured on this machine:
#   bash bench/mpi_model.sh STEP_MS_ONE_CORE SERIAL_MS PARAMS [SOCKET_CORES]
# STEP_MS_ONE_CORE: one rank x one thread's step time for the scene (bench/mpi_scaling.sh);
# SERIAL_MS: the part of it every rank repeats whatever the rank count (grid bookkeeping,
# repacking); PARAMS: trainable parameters; SOCKET_CORES: cores per rank (default 32), taken to
# run 0.5x as fast per core as this machine's single thread, since the step is memory-bound.
#
# Per step and rank, the sharded optimiser moves 4 P (N-1)/N bytes of gradients (fp32; 2 P with
# bf16) and 4 P (N-1)/N of parameters, each as N-1 messages:
#   T(N) = compute / N + serial + (bytes / bandwidth + 2 (N-1) latency)
# with no overlap of compute and communication (what Radiant does today). Strong scaling keeps the
# samples per step (compute / N); weak scaling keeps the samples per rank (compute stays). Links: 100 Gb/s
# InfiniBand (HDR100: 11 GB/s achieved, 2 us a message) and 25 GbE RoCE (2.8 GB/s, 5 us).
set -euo pipefail
[ $# -ge 3 ] || { sed -n 2,9p "$0" >&2; exit 2; }
awk -v t1="$1" -v serial="$2" -v P="$3" -v cores="${4:-32}" 'BEGIN {
    socket = (t1 - serial) / (cores * 0.5) ;  # compute per step on one socket
    printf "one socket (%d cores): %.1f ms compute + %.1f ms serial per step\n", cores, socket, serial
    printf "| link | wire | ranks | strong: compute ms | comm ms | step ms | speed-up over 1 socket | weak: step ms | efficiency |\n"
    printf "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    split("InfiniBand-100G RoCE-25GbE", link, " ")
    bw["InfiniBand-100G"] = 11e9; lat["InfiniBand-100G"] = 2e-6
    bw["RoCE-25GbE"] = 2.8e9; lat["RoCE-25GbE"] = 5e-6
    split("8 64 512", ranks, " ")
    split("fp32 bf16", wires, " ")
    for (l = 1; l <= 2; ++l) for (w = 1; w <= 2; ++w) for (k = 1; k <= 3; ++k) {
        N = ranks[k]; L = link[l]
        grad = (wires[w] == "fp32" ? 4 : 2) * P * (N - 1) / N
        bytes = grad + 4 * P * (N - 1) / N
        comm = (bytes / bw[L] + 2 * (N - 1) * lat[L]) * 1e3
        compute = socket / N
        step = compute + serial + comm
        weak = socket + serial + comm
        printf "| %s | %s | %d | %.2f | %.1f | %.1f | %.2fx | %.1f | %d%% |\n", L, wires[w], N, compute, comm, step,
               (socket + serial) / step, weak, (socket + serial) / weak * 100
    }
}'

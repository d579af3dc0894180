"""Accuracy of the trace estimators on simulated links whose truth is known (004 §VII).

Run with ``.venv/bin/python benchmarks/trace_estimates_table.py [--flows 2,10,50,200,400]
[--shares 0.95,0.9,0.8] [--duration 60] [--seed 1] [--verify]``.

Each row simulates a 50 Mbit/s link (004's Appendix) with N_b persistent TCP flows of RTTs
uniform in 20-534 ms (004's range) and Poisson background traffic for the non-LBP share
(1 - C_e/C), at B = C·T_avg (004 §VII's first run), writes the trace as CSV, estimates N_b,
T_e, C_e and the loss bursts from it, and sizes the buffer with BSCL (p̂ = 1 %) from the
estimates and from the truth. The truth: N_b the TCP flows; T_e the harmonic mean of the RTTs
the simulator drew; C_e their measured share; L̄ the mean burst of the trace's drops spaced
by less than the true T_e. It prints the relative errors (targets of issue 13: N_b within
20 %, T_e within 10 %, the BSCL size within 25 %). With ``--verify`` it simulates again at
the BSCL size from the estimates and at the sqrt(N) size C·T_avg/√N_b, and prints the loss
rates next to the loss at C·T_avg (004 §VII: about 1 %, 4 % and 10 % at 300 LBP flows).

The single-group simulator has no RBP, window-limited or short flows yet: the non-LBP share
is Poisson background here, which the CSV format does not mark as non-TCP.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import numpy as np

from models.bscl import bscl_buffer
from validation.simulator import Scenario, simulate
from validation.traces import estimate_trace, open_trace
from validation.traces.estimate import _bursts
from validation.traces.sizing import size_from_estimates
from validation.traces.synthetic import relative_error, simulated_trace, write_csv

CAPACITY_BPS = 50e6
RTT_LOW_S, RTT_HIGH_S = 0.020, 0.534
MSS, HEADER = 1448, 52


def scenario(flows: int, share: float, duration_s: float) -> Scenario:
    return Scenario(
        capacity_bps=CAPACITY_BPS,
        flows=flows,
        rtt_s=(RTT_LOW_S + RTT_HIGH_S) / 2,
        rtt_jitter_s=(RTT_HIGH_S - RTT_LOW_S) / 2,
        packet_bytes=MSS,
        header_bytes=HEADER,
        max_window_packets=10_000,
        delayed_ack=2,
        initial_window_packets=10,
        background_load=round(1.0 - share, 6),
        duration_s=duration_s,
        warmup_s=duration_s / 10,
        start_spread_s=duration_s / 10,
    )


def row(flows: int, share: float, args: argparse.Namespace, tmp: Path) -> str:
    sc = scenario(flows, share, args.duration)
    from validation.traces.synthetic import true_rtts_s

    rtts = true_rtts_s(sc, 100, args.seed)
    t_avg = float(rtts.mean())
    wire = sc.wire_bytes
    buffer_ct = max(int(CAPACITY_BPS * t_avg / (8 * wire)), 1)
    started = time.perf_counter()
    sim = simulated_trace(sc, buffer_ct, args.seed)
    path = tmp / f"trace_{flows}_{share}.csv"
    write_csv(sim.trace, path)
    est = estimate_trace(
        open_trace(path),
        capacity_bps=CAPACITY_BPS,
        warmup_s=sc.warmup_s,
        buffer_bytes=None if args.no_buffer else buffer_ct * wire,
    )
    after = sim.trace.dropped & (sim.trace.time_s >= sc.warmup_s)
    true_bursts = _bursts(np.sort(sim.trace.time_s[after]), sim.effective_rtt_s)
    true_burst = float(true_bursts.mean()) if true_bursts.size else math.nan
    truth = bscl_buffer(
        CAPACITY_BPS,
        min(sim.bottlenecked_share, 1.0),
        flows,
        wire,
        0.01,
        effective_rtt_s=sim.effective_rtt_s,
        loss_burst_packets=true_burst if true_burst > 0 else None,
    )
    try:
        sized = size_from_estimates(est, 0.01).buffer_packets
    except ValueError:
        sized = math.nan
    b_true = float(truth.buffer_packets)
    text = (
        f"{flows:5d} {share:5.0%} | {est.bottlenecked_flows.value:5.0f} "
        f"{relative_error(est.bottlenecked_flows.value, flows):+7.1%} | "
        f"{est.effective_rtt_s.value * 1e3:6.1f} {sim.effective_rtt_s * 1e3:6.1f} "
        f"{relative_error(est.effective_rtt_s.value, sim.effective_rtt_s):+7.1%} | "
        f"{est.bottlenecked_share.value:5.1%} {sim.bottlenecked_share:5.1%} | "
        f"{est.loss_burst_mean_packets.value:6.1f} {true_burst:6.1f} | "
        f"{sized:7.0f} {b_true:7.0f} {relative_error(sized, b_true):+7.1%} | "
        f"{buffer_ct:5d} {sim.loss_rate:6.2%}"
    )
    if args.verify and math.isfinite(sized):
        bscl_run = simulate(sc, max(math.ceil(sized), 1), args.seed)
        stanford = max(int(buffer_ct / math.sqrt(flows)), 1)
        stanford_run = simulate(sc, stanford, args.seed)
        text += (
            f" | {bscl_run.loss_rate:6.2%} {bscl_run.utilization:6.1%} "
            f"{stanford:5d} {stanford_run.loss_rate:6.2%}"
        )
    return text + f"  ({time.perf_counter() - started:.0f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", default="2,10,50,200,400")
    parser.add_argument("--shares", default="0.95,0.9,0.8")
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verify", action="store_true")
    parser.add_argument(
        "--no-buffer", action="store_true", help="do not tell the estimator the buffer"
    )
    args = parser.parse_args()
    print(
        "  N_b   C_e |  N_b^   err  |  T_e^ms T_e ms   err  |  C_e^  C_e  |   L^     L  | "
        " B^pkts  B pkts   err  | B=CT  loss"
        + (" | loss@B^  util  B=√N  loss" if args.verify else "")
    )
    with tempfile.TemporaryDirectory() as tmp:
        for share in (float(s) for s in args.shares.split(",")):
            for flows in (int(n) for n in args.flows.split(",")):
                print(row(flows, share, args, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()

"""How much of the trace estimator's RTT error is this link's queue: an oracle experiment.

Run with ``.venv/bin/python studies/trace_queue_oracle.py [--grid 1-25:2,10] [--shares
0.95,0.9,0.8] [--full] [--cache DIR] [--markdown FILE]`` (the rows, options and cache files of
``studies/trace_rtt_accuracy.py``).

**This is not an estimator.** It uses the simulator's truth (the access rate of 004 §VII's RBP
flows) to measure what a reconstruction of this link's queueing delay would give the flows
that the trace estimator times by a packet spacing (H. Jiang, C. Dovrolis, CCR 2002, [21] of
004 §VI). Such a sample is the RTT plus the wait w of the second flight's first packet here
(its first flight's first packet leaves at d1, the acknowledgement releases the next packet one
RTT later, which leaves at d1 + RTT + w). BSCL's RTT excludes that wait (004 §III.A), and the
estimator can only take off a typical wait (``estimate._queue_corrected_rtts``), so a flow
that started into a long queue keeps it (``studies/results/trace_rtt_accuracy.md``).

The reconstruction: an RBP flow sits behind an access link slower than this one, so while
that link is backlogged its packets reach this one exactly P = wire bytes / access rate apart.
Numbered k in order of arrival (a drop is timed at its arrival, and is put behind the full
queue it met: a packet that arrived before it leaves within B/C of it), packet k arrives at
a0 + k·P, so x_k = d_k − τ − k·P is a0 plus its wait (τ: its transmission here). A stretch
ends where x jumps by more than the full buffer's delay (the access link went idle). The
stretch's drops fix a0 (their wait is 0); a stretch without drops takes its least x as a0 (a
wait of 0 somewhere in it: when the queue never emptied, the waits come out too short). A wait
is kept within [0, B/C].
Every LBP flow's spacing sample, less the reconstructed wait at its time (interpolated over
all RBP packets), is set against the true RTT, and each row's T_e is taken again with these
RTTs in place of the estimator's spacing-based ones.

What a trace does not carry, and an estimator would have to find: P (the access rate), which
flows are paced that way, and where their access links went idle.
``trace_queue_estimated.py`` finds them from the trace alone (same rows, both side by side).
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import tempfile
from pathlib import Path

import numpy as np
from trace_estimates_table import estimated_row
from trace_rtt_accuracy import SPACING_SOURCES, TE_TARGET, _grid, within

from validation.harness.bscl import CAPACITY_BPS
from validation.simulator import PacketTrace, Scenario
from validation.traces.estimate import FlowEstimate
from validation.traces.synthetic import group_slots


def queue_waits(
    trace: PacketTrace, rbp: list[int], period_s: float, tx_s: float, full_s: float
) -> tuple[np.ndarray, np.ndarray]:
    """(departure times, waits) of the RBP flows' packets, in time order (see the module)."""
    times, waits = [], []
    for flow in rbp:
        mine = trace.flow == flow
        t, dropped = trace.time_s[mine], trace.dropped[mine]
        order = np.argsort(np.where(dropped, t + full_s, t), kind="stable")
        t, dropped = t[order], dropped[order]
        x = np.where(dropped, t, t - tx_s) - np.arange(t.size) * period_s
        ends = np.r_[0, np.nonzero(np.diff(x) > full_s)[0] + 1, t.size]
        for lo, hi in itertools.pairwise(ends):
            xs, ds = x[lo:hi], dropped[lo:hi]
            a0 = float(np.median(xs[ds])) if ds.any() else float(xs.min())
            times.append(t[lo:hi][~ds])
            waits.append(np.clip(xs[~ds] - a0, 0.0, full_s))  # no wait beyond a full buffer
    if not times:
        return np.zeros(0), np.zeros(0)
    t_all, w_all = np.concatenate(times), np.concatenate(waits)
    order = np.argsort(t_all)
    return t_all[order], w_all[order]


def _taken_off(f: FlowEstimate, t_w: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """The flow's spacing sample less the reconstructed wait at its time (kept at no less
    than a tenth of the sample, as the estimator keeps its own corrections), and that wait."""
    wait = float(np.interp(f.rtt_sample_at_s, t_w, w)) if t_w.size else 0.0
    return max(f.rtt_sample_s - wait, 0.1 * f.rtt_sample_s), wait


def _harmonic(values: list[float]) -> float:
    return len(values) / sum(1.0 / v for v in values) if values else math.nan


def grid_args(description: str | None) -> tuple[argparse.Namespace, list[float]]:
    """The rows' options of this script and ``trace_queue_estimated.py`` (those of
    ``trace_rtt_accuracy.py``), and the C_e shares."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--grid", action="append", default=[], help="SEEDS:FLOWS, e.g. 1-25:2")
    parser.add_argument("--shares", default="0.95,0.9,0.8")
    parser.add_argument("--full", action="store_true", help="004 §VII's 200 s runs")
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args()
    return args, [float(x) for x in args.shares.split(",")]


def oracle_waits(
    sc: Scenario, buffer: int, trace: PacketTrace
) -> tuple[np.ndarray, np.ndarray, float]:
    """(times, waits) of :func:`queue_waits` with the RBP group's true access rate, and the
    full buffer's delay B/C, s."""
    # the RBP group's access rate: the truth a trace does not carry
    (access_bps,) = {g.access_bps for g in sc.flow_groups if g.name == "RBP"}
    period_s = 8.0 * sc.wire_bytes / float(access_bps)
    tx_s = 8.0 * sc.wire_bytes / CAPACITY_BPS
    full_s = buffer * tx_s
    t_w, w = queue_waits(trace, group_slots(sc, ("RBP",)), period_s, tx_s, full_s)
    return t_w, w, full_s


def main() -> None:
    args, shares = grid_args(__doc__)
    lines = [
        "| seed | N_b | C_e/C | flow | true RTT ms | sample ms | at s | wait ms | "
        "estimator ms | oracle ms | estimator within | oracle within |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    flows_before = flows_after = flows_total = 0
    te_before: list[float] = []
    te_after: list[float] = []
    te_estimator: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed, n_b in _grid(args.grid or ["1-25:2,10"]):
            for share in shares:
                sc, buffer, _, sim, est = estimated_row(n_b, share, seed, args, Path(tmp))
                t_w, w, _ = oracle_waits(sc, buffer, sim.trace)
                table = {f.key: f for f in est.flow_table}
                old: list[float] = []
                new: list[float] = []
                for f in est.flow_table:
                    if f.flow_class != "lbp" or not (math.isfinite(f.rtt_s) and f.rtt_s > 0):
                        continue
                    old.append(f.rtt_s)
                    spacing = f.rtt_source in SPACING_SOURCES and math.isfinite(f.rtt_sample_s)
                    new.append(_taken_off(f, t_w, w)[0] if spacing else f.rtt_s)
                te_before.append(abs(_harmonic(old) / sim.effective_rtt_s - 1.0))
                te_estimator.append(abs(est.effective_rtt_s.value / sim.effective_rtt_s - 1.0))
                te_after.append(abs(_harmonic(new) / sim.effective_rtt_s - 1.0))
                for slot in sim.lbp_flows:
                    found = table.get(str(slot))
                    if found is None or found.rtt_source not in SPACING_SOURCES:
                        continue
                    truth = float(sim.rtts_s[slot])
                    oracle, wait = _taken_off(found, t_w, w)
                    flows_total += 1
                    flows_before += within(found.rtt_s, truth)
                    flows_after += within(oracle, truth)
                    lines.append(
                        f"| {seed} | {n_b} | {share:.0%} | {slot} | {truth * 1e3:.1f} | "
                        f"{found.rtt_sample_s * 1e3:.1f} | {found.rtt_sample_at_s:.2f} | "
                        f"{wait * 1e3:.1f} | {found.rtt_s * 1e3:.1f} | {oracle * 1e3:.1f} | "
                        f"{'yes' if within(found.rtt_s, truth) else 'no'} | "
                        f"{'yes' if within(oracle, truth) else 'no'} |"
                    )
                print(
                    f"seed {seed} N_b {n_b} {share:.0%}: T_e error {te_before[-1]:.1%} -> "
                    f"{te_after[-1]:.1%}",
                    flush=True,
                )
    rows = len(te_before)
    summary = (
        f"Over {rows} rows: the LBP flows timed by a spacing ({flows_total}) within max(10 %, "
        f"5 ms) of the true RTT: {flows_before} with the estimator's correction, {flows_after} "
        f"with the oracle's wait taken off. T_e misses {TE_TARGET:.0%} in "
        f"{sum(e > TE_TARGET for e in te_before)} rows with the estimator's RTTs (taken again "
        f"here over the flows classed LBP with an RTT), "
        f"{sum(e > TE_TARGET for e in te_after)} with the oracle's (the estimator's own T_e "
        f"misses in {sum(e > TE_TARGET for e in te_estimator)}); median |T_e error| "
        f"{statistics.median(te_before):.1%} -> {statistics.median(te_after):.1%}."
    )
    print(summary)
    if args.markdown:
        args.markdown.write_text(
            "# This link's queue in the spacing samples: an oracle experiment\n\n"
            "Made by `.venv/bin/python studies/trace_queue_oracle.py "
            + " ".join(f"--grid {g}" for g in args.grid)
            + f" --shares {args.shares}{' --full' if args.full else ''}` (see its docstring: "
            "the RBP flows' access rate is the simulator's truth; this is not an estimator).\n\n"
            + summary
            + "\n\n"
            + "\n".join(lines)
            + "\n"
        )


if __name__ == "__main__":
    main()

"""This link's queue in the spacing samples, reconstructed from the trace alone: an experiment.

Run with ``.venv/bin/python studies/trace_queue_estimated.py [--grid 1-25:2,10] [--shares
0.95,0.9,0.8] [--full] [--cache DIR] [--markdown FILE]`` (the rows, options and cache files of
``studies/trace_rtt_accuracy.py`` and ``studies/trace_queue_oracle.py``).

``trace_queue_oracle.py`` reconstructs this link's queueing delay w(t) from the RBP flows'
periodic arrivals with the simulator's access rate (the period P): an oracle. This script
does the same from what a trace with the link's drop events (the CSV of ``bufsize simulate
--trace``) carries, given C and B as the estimator is:

- **which flows**: those the estimator classes RBP (``flow_table``; 004 §VI, a flow behind a
  slower link before this one, 004 §VII's RBP flows);
- **P and the anchor of each backlogged stretch**: while the flow's access link is busy, its
  k-th packet of a stretch reaches this link at a0 + k·P. Each packet bounds its own arrival
  a_k (a FIFO link, every time from the trace):

  - a_k <= d_k − τ (its wait here is not negative; d_k its departure, τ its transmission);
  - a_k >= d_k − τ − B/C (no wait beyond a full buffer) and a_k >= the start of the link's
    busy period it left in (the first departure of that period less its transmission: the
    link was idle before, so it held nothing from before). A packet that began a busy
    period has a_k = d_k − τ;
  - a drop at t_D (any flow's; timed at its arrival) found the buffer full, so about B/C of
    work ahead: a packet that left before t_D + B/C − 2τ arrived before t_D, one that left
    after t_D + B/C + 2τ arrived after (2τ: whether the full buffer counts the packet in
    service);
  - the flow's own drop is timed at its arrival: a_k = t.

  These are linear in (a0, P): a polygon. P is the middle of its feasible range (two linear
  programmes) and a0 the middle of the range at that P; the wait of each packet is
  d_k − τ − (a0 + k·P), kept in [0, B/C]. A stretch ends where the arrival times jump by
  more than B/C at the median spacing (the oracle's rule); a stretch with no feasible
  (a0, P) (a break the rule missed, a flow that is not paced) gives no waits.
- **the wait at a sample's time**: the median over the RBP flows whose stretches cover it of
  each flow's waits interpolated there (a flow misclassed RBP is outvoted).

Every LBP flow's spacing sample (H. Jiang, C. Dovrolis, CCR 2002, [21] of 004 §VI), less that
wait, is set against the true RTT next to the oracle's and the estimator's, and each row's T_e
(004 eq. 12) and BSCL size (004 Fig. 4; the loss bursts taken again with the new T_e, 004
§III.C) are taken again, against the truth as in ``trace_estimates_table.py``. Each RBP
candidate's P is set against the simulator's access period where it is a true RBP flow.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import tempfile
from pathlib import Path

import numpy as np
from scipy.optimize import linprog
from trace_estimates_table import estimated_row, true_size
from trace_queue_oracle import _harmonic, _taken_off, grid_args, oracle_waits
from trace_rtt_accuracy import SPACING_SOURCES, TE_TARGET, _grid, within

from validation.harness.bscl import CAPACITY_BPS
from validation.simulator import PacketTrace
from validation.traces.estimate import (
    FlowEstimate,
    Interval,
    TraceEstimates,
    _burst_intervals,
    _bursts,
)
from validation.traces.sizing import size_from_estimates
from validation.traces.synthetic import group_slots

#: Packets a stretch needs before its (a0, P) is fitted.
MIN_STRETCH = 20
#: Size error that counts as a miss (issue 13's check), and N_b's.
SIZE_TARGET = 0.25


@dataclasses.dataclass
class Stretch:
    times: np.ndarray  # departures of the stretch's packets that left (not dropped)
    waits: np.ndarray  # their reconstructed waits, s (empty when infeasible)
    period_s: float  # NaN when infeasible
    period_range_s: tuple[float, float]


def _rows_of(trace: PacketTrace, key: str) -> np.ndarray:
    """The trace rows of the CSV flow id ``key`` (the slot, or ``slot.k`` for a later transfer)."""
    slot, _, later = key.partition(".")
    rows = trace.flow == int(slot)
    if trace.transfer is not None:
        rows &= trace.transfer == (int(later) if later else 0)
    return np.asarray(rows, dtype=bool)


def link_facts(trace: PacketTrace, capacity_bps: float) -> tuple[np.ndarray, ...]:
    """Departure times (sorted), the start of each one's busy period, and the drop times."""
    left = ~trace.dropped
    order = np.argsort(trace.time_s[left], kind="stable")
    departs = trace.time_s[left][order]
    begins = departs - 8.0 * trace.size_bytes[left][order] / capacity_bps
    idle_before = np.r_[True, begins[1:] > departs[:-1] + 1e-9]
    busy_start = np.maximum.accumulate(np.where(idle_before, begins, -np.inf))
    return departs, busy_start, np.sort(trace.time_s[trace.dropped])


def _fit(k: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float, float, float]:
    """(P, a0, P low, P high) with lo <= a0 + k·P <= hi, P the middle of its range; NaNs if none."""
    a_ub = np.r_[np.c_[-np.ones_like(k), -k], np.c_[np.ones_like(k), k]]
    b_ub = np.r_[-lo, hi]
    ends = []
    for sign in (1.0, -1.0):
        result = linprog(
            (0.0, sign), A_ub=a_ub, b_ub=b_ub, bounds=[(None, None), (0, None)], method="highs"
        )
        if result.status != 0:
            return math.nan, math.nan, math.nan, math.nan
        ends.append(float(result.x[1]))
    period = 0.5 * (ends[0] + ends[1])
    a_low, a_high = float(np.max(lo - k * period)), float(np.min(hi - k * period))
    return period, 0.5 * (a_low + a_high), ends[0], ends[1]


def estimated_waits(
    trace: PacketTrace, key: str, capacity_bps: float, full_s: float, facts: tuple[np.ndarray, ...]
) -> list[Stretch]:
    """The flow's backlogged stretches with their P and the waits here (see the module)."""
    departs, busy_start, drops = facts
    rows = _rows_of(trace, key)
    t, dropped = trace.time_s[rows], trace.dropped[rows]
    if t.size < MIN_STRETCH:
        return []
    tx = 8.0 * trace.size_bytes[rows] / capacity_bps
    order = np.argsort(np.where(dropped, t + full_s, t), kind="stable")
    t, dropped, tx = t[order], dropped[order], tx[order]
    y = np.where(dropped, t, t - tx)  # the arrival, or the latest it can be
    spacing = float(np.median(np.diff(y)))
    x = y - np.arange(t.size) * spacing
    ends = np.r_[0, np.nonzero(np.diff(x) > full_s)[0] + 1, t.size]
    j = np.clip(np.searchsorted(departs, t, side="left"), 0, max(departs.size - 1, 0))
    lo = np.maximum(y - full_s, busy_start[j]) if departs.size else y - full_s
    hi = y.copy()
    if drops.size:
        after = np.searchsorted(drops, t - full_s + 2.0 * tx, side="left")
        hi = np.minimum(
            hi, np.where(after < drops.size, drops[np.minimum(after, drops.size - 1)], np.inf)
        )
        before = np.searchsorted(drops, t - full_s - 2.0 * tx, side="right") - 1
        lo = np.maximum(lo, np.where(before >= 0, drops[np.maximum(before, 0)], -np.inf))
    lo = np.where(dropped, t, lo)
    hi = np.where(dropped, t, hi)
    stretches = []
    for first, end in itertools.pairwise(ends):
        if end - first < MIN_STRETCH:
            continue
        k = np.arange(end - first, dtype=float)
        base = y[first]
        period, a0, p_low, p_high = _fit(k, lo[first:end] - base, hi[first:end] - base)
        left = ~dropped[first:end]
        if math.isnan(period):
            stretches.append(
                Stretch(t[first:end][left], np.zeros(0), math.nan, (math.nan, math.nan))
            )
            continue
        waits = y[first:end] - base - (a0 + k * period)
        stretches.append(
            Stretch(t[first:end][left], np.clip(waits[left], 0.0, full_s), period, (p_low, p_high))
        )
    return stretches


def wait_at(flows: dict[str, list[Stretch]], when: float) -> tuple[float, int]:
    """The median over the flows of their waits interpolated at ``when``, and how many."""
    found = []
    for stretches in flows.values():
        for s in stretches:
            if s.waits.size and s.times[0] <= when <= s.times[-1]:
                found.append(float(np.interp(when, s.times, s.waits)))
    return (float(np.median(found)), len(found)) if found else (math.nan, 0)


def _less_wait(f: FlowEstimate, wait: float) -> float:
    """The sample less the wait, kept at no less than a tenth of it (as the oracle does)."""
    return max(f.rtt_sample_s - wait, 0.1 * f.rtt_sample_s) if math.isfinite(wait) else f.rtt_s


def _size(est: TraceEstimates, te: float, loss_times: np.ndarray) -> float:
    """BSCL's size from the estimates with T_e replaced (and the bursts taken again with it)."""
    mean, median = _burst_intervals(_bursts(loss_times, te))
    changed = dataclasses.replace(
        est,
        effective_rtt_s=Interval(te, te, te, "experiment"),
        loss_burst_mean_packets=mean,
        loss_burst_median_packets=median,
    )
    try:
        return size_from_estimates(changed, 0.01).buffer_packets
    except ValueError:
        return math.nan


def main() -> None:
    args, shares = grid_args(__doc__)
    flow_lines = [
        "| seed | N_b | C_e/C | flow | true RTT ms | sample ms | at s | oracle wait ms | "
        "estimated wait ms (RBP flows) | estimator ms | oracle ms | estimated ms | "
        "estimator within | oracle within | estimated within |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    row_lines = [
        "| seed | N_b | C_e/C | N_b est | T_e err estimator | T_e err oracle | T_e err estimated "
        "| B err estimator | B err estimated |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    period_errors: list[float] = []
    period_rows: list[str] = []
    not_rbp = infeasible = stretches_total = 0
    within_counts = {"estimator": 0, "oracle": 0, "estimated": 0}
    flows_total = 0
    misses = {"estimator": 0, "oracle": 0, "estimated": 0, "size_before": 0, "size_after": 0}
    worse: list[str] = []
    te_rows = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed, n_b in _grid(args.grid or ["1-25:2,10"]):
            for share in shares:
                sc, buffer, _, sim, est = estimated_row(n_b, share, seed, args, Path(tmp))
                trace = sim.trace
                # the oracle, as trace_queue_oracle.py
                t_w, w, full_s = oracle_waits(sc, buffer, trace)
                (access_bps,) = {g.access_bps for g in sc.flow_groups if g.name == "RBP"}
                true_period = 8.0 * sc.wire_bytes / float(access_bps)
                true_rbp = set(group_slots(sc, ("RBP",)))
                # the estimate, from the trace only
                facts = link_facts(trace, CAPACITY_BPS)
                candidates = [f.key for f in est.flow_table if f.flow_class == "rbp"]
                waits = {
                    k: estimated_waits(trace, k, CAPACITY_BPS, full_s, facts) for k in candidates
                }
                for key, stretches in waits.items():
                    slot, _, later = key.partition(".")
                    for s in stretches:
                        stretches_total += 1
                        infeasible += math.isnan(s.period_s)
                    fitted = [s for s in stretches if not math.isnan(s.period_s)]
                    if not fitted:
                        continue
                    longest = max(fitted, key=lambda s: s.times.size)
                    if later or int(slot) not in true_rbp:
                        not_rbp += 1
                        period_rows.append(
                            f"seed {seed} N_b {n_b} {share:.0%}: flow {key} classed RBP, not in "
                            f"the RBP group; P {longest.period_s * 1e3:.3f} ms"
                        )
                        continue
                    period_errors.append(longest.period_s / true_period - 1.0)
                    if abs(period_errors[-1]) > 0.01:
                        period_rows.append(
                            f"seed {seed} N_b {n_b} {share:.0%}: RBP flow {key}: P "
                            f"{longest.period_s * 1e3:.3f} ms against {true_period * 1e3:.3f} "
                            f"ms ({period_errors[-1]:+.2%}; stretch of {longest.times.size} "
                            f"packets from {longest.times[0]:.2f} s, P range "
                            f"{longest.period_range_s[0] * 1e3:.3f}-"
                            f"{longest.period_range_s[1] * 1e3:.3f} ms)"
                        )
                table = {f.key: f for f in est.flow_table}
                new: list[float] = []
                ora: list[float] = []
                for f in est.flow_table:
                    if f.flow_class != "lbp" or not (math.isfinite(f.rtt_s) and f.rtt_s > 0):
                        continue
                    spacing = f.rtt_source in SPACING_SOURCES and math.isfinite(f.rtt_sample_s)
                    new.append(
                        _less_wait(f, wait_at(waits, f.rtt_sample_at_s)[0]) if spacing else f.rtt_s
                    )
                    ora.append(_taken_off(f, t_w, w)[0] if spacing else f.rtt_s)
                truth = sim.effective_rtt_s
                errors = {
                    "estimator": est.effective_rtt_s.value / truth - 1.0,
                    "oracle": _harmonic(ora) / truth - 1.0,
                    "estimated": _harmonic(new) / truth - 1.0,
                }
                te_rows += 1
                for name, value in errors.items():
                    misses[name] += abs(value) > TE_TARGET
                b_true = true_size(sim, n_b)[0]
                try:
                    b_before = size_from_estimates(est, 0.01).buffer_packets
                except ValueError:
                    b_before = math.nan
                warm_abs = float(trace.time_s[0]) + sc.warmup_s
                loss_times = np.sort(trace.time_s[trace.dropped & (trace.time_s >= warm_abs)])
                te_new = _harmonic(new)
                b_after = _size(est, te_new, loss_times) if new else math.nan
                size_before, size_after = b_before / b_true - 1.0, b_after / b_true - 1.0
                misses["size_before"] += not abs(size_before) <= SIZE_TARGET
                misses["size_after"] += not abs(size_after) <= SIZE_TARGET
                if (abs(errors["estimated"]) > TE_TARGET >= abs(errors["estimator"])) or (
                    abs(size_after) > SIZE_TARGET >= abs(size_before)
                ):
                    worse.append(f"seed {seed} N_b {n_b} {share:.0%}")
                row_lines.append(
                    f"| {seed} | {n_b} | {share:.0%} | {est.bottlenecked_flows.value:.0f} | "
                    f"{errors['estimator']:+.1%} | {errors['oracle']:+.1%} | "
                    f"{errors['estimated']:+.1%} | {size_before:+.1%} | {size_after:+.1%} |"
                )
                for lbp in sim.lbp_flows:
                    found = table.get(str(lbp))
                    if found is None or found.rtt_source not in SPACING_SOURCES:
                        continue
                    true_rtt = float(sim.rtts_s[lbp])
                    oracle, oracle_wait = _taken_off(found, t_w, w)
                    wait, count = wait_at(waits, found.rtt_sample_at_s)
                    mine = _less_wait(found, wait)
                    flows_total += 1
                    within_counts["estimator"] += within(found.rtt_s, true_rtt)
                    within_counts["oracle"] += within(oracle, true_rtt)
                    within_counts["estimated"] += within(mine, true_rtt)
                    flow_lines.append(
                        f"| {seed} | {n_b} | {share:.0%} | {lbp} | {true_rtt * 1e3:.1f} | "
                        f"{found.rtt_sample_s * 1e3:.1f} | {found.rtt_sample_at_s:.2f} | "
                        f"{oracle_wait * 1e3:.1f} | {wait * 1e3:.1f} ({count}) | "
                        f"{found.rtt_s * 1e3:.1f} | {oracle * 1e3:.1f} | {mine * 1e3:.1f} | "
                        f"{'yes' if within(found.rtt_s, true_rtt) else 'no'} | "
                        f"{'yes' if within(oracle, true_rtt) else 'no'} | "
                        f"{'yes' if within(mine, true_rtt) else 'no'} |"
                    )
                print(
                    f"seed {seed} N_b {n_b} {share:.0%}: T_e error estimator "
                    f"{errors['estimator']:+.1%}, oracle {errors['oracle']:+.1%}, estimated "
                    f"{errors['estimated']:+.1%}; size {size_before:+.1%} -> {size_after:+.1%}",
                    flush=True,
                )
    abs_p = np.abs(np.array(period_errors)) if period_errors else np.zeros(1)
    summary = (
        f"Over {te_rows} rows. P of the true RBP flows the estimator classes RBP "
        f"({len(period_errors)} flows, their longest fitted stretch): |error| median "
        f"{np.median(abs_p):.4%}, 95th percentile {np.percentile(abs_p, 95):.4%}, max "
        f"{abs_p.max():.4%}; within 0.01 %: {int(np.sum(abs_p <= 1e-4))}, within 0.1 %: "
        f"{int(np.sum(abs_p <= 1e-3))}, within 1 %: {int(np.sum(abs_p <= 1e-2))} (those "
        f"beyond are listed below); {not_rbp} flows classed RBP are not in the RBP group; "
        f"{infeasible} of {stretches_total} stretches had no feasible (a0, P).\n\n"
        f"Spacing-timed LBP flows ({flows_total}) within max(10 %, 5 ms) of the true RTT: "
        f"{within_counts['estimator']} with the estimator's correction, "
        f"{within_counts['oracle']} with the oracle's wait, {within_counts['estimated']} with "
        f"the estimated wait.\n\nT_e misses {TE_TARGET:.0%} in {misses['estimator']} rows "
        f"(estimator), {misses['oracle']} (oracle), {misses['estimated']} (estimated). BSCL "
        f"size misses {SIZE_TARGET:.0%} in {misses['size_before']} rows (estimator), "
        f"{misses['size_after']} (estimated). Rows that a check passes with the estimator and "
        f"fails with the estimated wait: {', '.join(worse) if worse else 'none'}."
    )
    print(summary)
    for line in period_rows:
        print(line)
    if args.markdown:
        args.markdown.write_text(
            "# This link's queue in the spacing samples, from the trace alone: an experiment\n\n"
            "Made by `.venv/bin/python studies/trace_queue_estimated.py "
            + " ".join(f"--grid {g}" for g in args.grid)
            + f" --shares {args.shares}{' --full' if args.full else ''}` (see its docstring).\n\n"
            + summary
            + "\n\n"
            + "\n".join(f"- {line}" for line in period_rows)
            + "\n\n## Rows\n\n"
            + "\n".join(row_lines)
            + "\n\n## Spacing-timed LBP flows\n\n"
            + "\n".join(flow_lines)
            + "\n"
        )


if __name__ == "__main__":
    main()

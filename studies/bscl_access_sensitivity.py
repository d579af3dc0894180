"""Sensitivity of 004 §VII's loss results to the LBP flows' access rate, which 004 does not print.

Run with ``.venv/bin/python studies/bscl_access_sensitivity.py [--access 1e9,1e8,1e7]
[--buffers 2459,672,38] [--seeds 1,2] [--flows 300] [--share 0.9] [--lbp-rtt mix] [--quick]
[--jobs 1] [--markdown FILE]``.

004's Appendix: "A set of 18 source nodes, located at the nodes of a tree, generate TCP flows
destined to a single sink node. [...] The non-bottlenecked links are provisioned in terms of both
capacity and buffer size so that they do not cause losses or significant queuing delays." The
capacities of those links are in Figure 10, which the text does not hold. The link that serializes
an LBP sender's packets sets how far apart the two segments a delayed ACK releases reach the
target link (1500 B at 1 Gb/s: 12 µs; at 100 Mb/s: 120 µs; at 10 Mb/s: 1.2 ms; one departure
slot of the 50 Mb/s target link is 240 µs).

Each row simulates the ``bscl_loss`` mix (:func:`validation.harness.bscl.mix_scenario`) with the
access rate of the LBP, window-limited and short flows set to the row's value (RBP flows keep
their slow access links), at one buffer of Table I, and prints per seed and as a mean with a
99% Student-t interval: the packet loss rate at the link, the LBP flows' loss rate, their
loss-event rate and drops per loss event, the utilization, the LBP share of C and the mean
queueing delay.

``--lbp-rtt`` replaces the LBP flows' RTTs (a diagnosis of Table I's sizes, which were computed
for the paper's RTTs): ``uniform:LO:HI`` draws them uniform in LO-HI ms; ``log:LO:HI:K`` splits
the LBP flows into K groups (004's "18 source nodes") whose RTTs are uniform between consecutive
points of a geometric sequence from LO to HI ms, a piecewise-uniform log-uniform distribution.
The table then also gives the LBP flows' mean RTT T_avg and harmonic mean T_e (004 eq. 12).

A loss event of a flow is a run of its drops at the target link no longer than one RTT from the
event's first drop: the flow's propagation RTT plus the full buffer's queueing delay B/C (a full
buffer is when drops happen). NewReno with SACK halves its window once per such event, which is
the "loss indication" of Mathis et al.'s eq. (the 0.87/√p of 004 eq. 2 that BSCL's K_p rests on).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from validation.harness.bscl import mix_scenario
from validation.simulator import Scenario, simulate
from validation.simulator.parameters import RunParameters, make_parameters
from validation.simulator.results import PacketTrace, confidence_interval


@dataclass
class Measured:
    """One run's figures."""

    loss_rate: float
    lbp_loss_rate: float
    lbp_event_rate: float
    drops_per_event: float
    utilization: float
    lbp_share: float
    queue_delay_ms: float
    t_avg_ms: float
    t_e_ms: float
    wall_s: float


def loss_events(times: np.ndarray, flows: np.ndarray, window_s: np.ndarray) -> int:
    """Loss events: per flow, drops within ``window_s[flow]`` of the event's first drop."""
    events = 0
    order = np.lexsort((times, flows))
    times, flows = times[order], flows[order]
    start, current = -math.inf, -1
    for t, f in zip(times.tolist(), flows.tolist(), strict=True):
        if f != current or t - start > window_s[f]:
            events += 1
            start, current = t, f
    return events


def lbp_loss_events(
    trace: PacketTrace, params: RunParameters, warmup_s: float, lbp_flows: int, buffer_packets: int
) -> tuple[int, int]:
    """The LBP flows' drops after the warm-up and their loss events (:func:`loss_events`, each
    flow's window its RTT plus the full buffer's delay); the LBP group's slots come first."""
    drops = trace.dropped & (trace.time_s >= warmup_s) & (trace.flow < lbp_flows)
    window = params.rtt_s + buffer_packets * params.tx_s
    return int(drops.sum()), loss_events(trace.time_s[drops], trace.flow[drops], window)


def with_lbp_rtts(scenario: Scenario, spec: str) -> Scenario:
    """The scenario with its LBP group's RTTs replaced as ``spec`` says (see the docstring)."""
    if spec == "mix":
        return scenario
    kind, *values = spec.split(":")
    lbp, *others = scenario.groups
    if kind == "uniform":
        lo, hi = (float(v) / 1e3 for v in values)
        groups = [lbp.replace(rtt_s=(lo + hi) / 2, rtt_jitter_s=(hi - lo) / 2)]
    elif kind == "log":
        lo, hi, k = float(values[0]) / 1e3, float(values[1]) / 1e3, int(values[2])
        edges = lo * (hi / lo) ** (np.arange(k + 1) / k)
        counts = np.diff(np.round(np.linspace(0, lbp.flows, k + 1)).astype(int))
        groups = [
            lbp.replace(
                name="LBP" if i == 0 else f"LBP {i + 1}",
                flows=int(n),
                rtt_s=float(edges[i] + edges[i + 1]) / 2,
                rtt_jitter_s=float(edges[i + 1] - edges[i]) / 2,
            )
            for i, n in enumerate(counts)
        ]
    else:
        raise ValueError(f"--lbp-rtt: {spec!r}")
    return dataclasses.replace(scenario, groups=(*groups, *others))


def run(
    access_bps: float,
    buffer_packets: int,
    seed: int,
    flows: int,
    share: float,
    full: bool,
    lbp_rtt: str = "mix",
) -> Measured:
    """One simulation and its figures."""
    scenario = with_lbp_rtts(mix_scenario(flows, share, full, access_bps=access_bps), lbp_rtt)
    result = simulate(scenario, buffer_packets, seed, trace=True)
    params = make_parameters(scenario, buffer_packets, seed)
    trace = result.packet_trace
    assert trace is not None
    drops, events = lbp_loss_events(trace, params, scenario.warmup_s, flows, buffer_packets)
    lbp_groups = [g for g in result.groups if g.name.startswith("LBP")]
    arrivals = sum(g.bottleneck_arrivals for g in lbp_groups)
    rtts = params.rtt_s[:flows]
    return Measured(
        loss_rate=result.loss_rate,
        lbp_loss_rate=int(sum(g.loss_rate * g.bottleneck_arrivals for g in lbp_groups)) / arrivals,
        lbp_event_rate=events / arrivals,
        drops_per_event=drops / max(events, 1),
        utilization=result.utilization,
        lbp_share=sum(g.utilization_share for g in lbp_groups),
        queue_delay_ms=1e3 * result.queue_delay_mean_s,
        t_avg_ms=1e3 * float(rtts.mean()),
        t_e_ms=1e3 * len(rtts) / float((1.0 / rtts).sum()),
        wall_s=result.wall_s,
    )


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 99% Student-t interval (NaN for one value)."""
    estimate = confidence_interval(values)
    return estimate.mean, estimate.ci99_half_width


def fmt(values: list[float], scale: float, digits: int) -> str:
    mean, half = interval([scale * v for v in values])
    return (
        f"{mean:.{digits}f} ± {half:.{digits}f}" if not math.isnan(half) else f"{mean:.{digits}f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--access", default="1e9,1e8,1e7")
    parser.add_argument("--buffers", default="2459,672,38")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--flows", type=int, default=300)
    parser.add_argument("--share", type=float, default=0.9)
    parser.add_argument("--lbp-rtt", default="mix", help="mix | uniform:LO:HI | log:LO:HI:K (ms)")
    parser.add_argument("--quick", action="store_true", help="60 s runs instead of 200 s")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args()
    access = [float(a) for a in args.access.split(",")]
    buffers = [int(b) for b in args.buffers.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    full = not args.quick
    cells = [(a, b, s) for b in buffers for a in access for s in seeds]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = {
            cell: pool.submit(
                run, cell[0], cell[1], cell[2], args.flows, args.share, full, args.lbp_rtt
            )
            for cell in cells
        }
        results = {cell: future.result() for cell, future in futures.items()}
    command = (
        f"studies/bscl_access_sensitivity.py --access {args.access} --buffers {args.buffers} "
        f"--seeds {args.seeds} --flows {args.flows} --share {args.share} --lbp-rtt {args.lbp_rtt}"
        + (" --quick" if args.quick else "")
    )
    lines = [
        f"Command: `.venv/bin/python {command}`",
        "",
        f"004 §VII mix, {args.flows} LBP flows, C_e {args.share:.0%} of C, "
        f"{'200 s runs (20 s warm-up)' if full else '60 s runs (10 s warm-up)'}, seeds "
        f"{args.seeds}; LBP RTTs {args.lbp_rtt}; mean ± 99% Student-t half-width over the "
        "seeds. "
        f"{platform.node()}, {time.perf_counter() - start:.0f} s wall.",
        "",
        "| buffer | access (LBP, window-limited, short) | loss at the link % | LBP loss % "
        "| LBP loss-event rate % | LBP drops per event | utilization % | LBP share of C % "
        "| mean queueing delay ms | LBP T_avg ms | LBP T_e ms |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for b in buffers:
        for a in access:
            runs = [results[(a, b, s)] for s in seeds]
            lines.append(
                f"| {b} | {a / 1e6:g} Mb/s "
                f"| {fmt([r.loss_rate for r in runs], 100, 2)} "
                f"| {fmt([r.lbp_loss_rate for r in runs], 100, 2)} "
                f"| {fmt([r.lbp_event_rate for r in runs], 100, 2)} "
                f"| {fmt([r.drops_per_event for r in runs], 1, 2)} "
                f"| {fmt([r.utilization for r in runs], 100, 2)} "
                f"| {fmt([r.lbp_share for r in runs], 100, 2)} "
                f"| {fmt([r.queue_delay_ms for r in runs], 1, 0)} "
                f"| {fmt([r.t_avg_ms for r in runs], 1, 1)} "
                f"| {fmt([r.t_e_ms for r in runs], 1, 1)} |"
            )
    lines += ["", "Per run (seed: link loss %, LBP event rate %, drops per event):", ""]
    for cell, r in results.items():
        lines.append(
            f"- B {cell[1]}, {cell[0] / 1e6:g} Mb/s, seed {cell[2]}: {100 * r.loss_rate:.3f}, "
            f"{100 * r.lbp_event_rate:.3f}, {r.drops_per_event:.3f} ({r.wall_s:.0f} s)"
        )
    emit(lines, args.markdown)


def emit(lines: list[str], markdown: Path | None) -> None:
    """Print the table, and write it to ``markdown`` when one is given."""
    text = "\n".join(lines) + "\n"
    print(text)
    if markdown:
        markdown.write_text(text)


if __name__ == "__main__":
    main()

"""Linux's slow start in bufsize's simulator: what would it move, before it is changed?

bufsize's loss-based senders (Reno, CUBIC, DCTCP) grow cwnd in slow start by at most one
packet per ACK, RFC 5681 §3.1 eq. 2 (``cwnd += min(N, SMSS)``): with an ACK for every second
segment the window grows 1.5 times per round trip. Linux grows it by every segment the ACK
delivers, up to ssthresh, and hands what is left to congestion avoidance
(``net/ipv4/tcp_cong.c``, ``tcp_slow_start``: ``cwnd = min(tcp_snd_cwnd(tp) + acked,
tp->snd_ssthresh); acked -= cwnd - tcp_snd_cwnd(tp)``; called by ``tcp_reno_cong_avoid``,
which DCTCP uses too, and by ``cubictcp_cong_avoid`` in ``net/ipv4/tcp_cubic.c`` before
``bictcp_update``), so it doubles per round trip with the same delayed ACKs. ns-3 3.44's
``TcpLinuxReno::SlowStart`` does Linux's arithmetic; its ``TcpCubic::IncreaseWindow`` adds
``segmentsAcked`` segments in slow start (byte counting, no cap at ssthresh); its
``TcpNewReno::SlowStart`` adds one segment per ACK, as bufsize does.

The variant here is the reference simulator with Linux's rule (``LinuxSlowStart``): on an ACK
that bufsize would grow in slow start, cwnd becomes ``min(cwnd + acked, ssthresh)``, ``acked``
the packets the ACK newly delivers (those cumulatively acknowledged that were not SACKed
before, and a newly SACKed one: Linux's ``acked_sacked``), and what is left of ``acked`` goes
to congestion avoidance as bufsize's own byte-counting increase would take it. Nothing else
changes: BBR keeps its own window, and Linux's HyStart (CUBIC's default, ``hystart=1`` in
``tcp_cubic.c``) is not modelled on either side of this comparison. bufsize's own figures
are the compiled core's (the same sample paths as the reference simulator,
``tests/validation/test_sim_core_vs_reference.py``), the variant's the reference's.

Three comparisons:

- ``kernel``: the Reno and CUBIC families of ``kernel_compare.py`` where slow start matters
  (one flow at 20 Mbit/s, 50 ms at 4, 8 and 17 packets, where a timeout restarts slow start;
  40 flows at 100 Mbit/s, 80-120 ms at 25-167 packets), against the stored kernel runs in
  ``results/kernel_runs.json``; seeds 1 and 2, 20 s with 5 s of warm-up, as there.
- ``ns3``: ``ns3_compare.py``'s Reno, CUBIC and ``linux_reno`` rows (40 flows, 100 Mbit/s,
  0.05-1 BDP, seed 1, 30 s with 10 s of warm-up) against the stored ns-3 3.44 runs in
  ``results/ns3_runs.json``.
- ``short``: what users wait for, the completion time of finite flows at 100 Mbit/s, 100 ms:
  one transfer of a fixed size on an idle link, and Poisson arrivals of Pareto-sized flows at
  a load of 0.5, with 1 BDP of buffer. A transfer's completion time is from its first packet
  to the ACK of its last (no handshake on either side).

Run from the repository's root (the reference simulator: about 1-4 minutes a 40-flow run;
nice it on a shared machine)::

    nice -n 10 .venv/bin/python studies/linux_slow_start.py

Writes ``results/linux_slow_start.md`` (or ``--output``) with the command that made it; the
notes below its tables are kept when it is rewritten.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import kernel_compare
import ns3_compare
import numpy as np

from validation.simulator import FlowGroup, Scenario
from validation.simulator.layout import RecoveryState
from validation.simulator.measures import to_result
from validation.simulator.reference.simulator import ReferenceSimulator

RESULTS = Path(__file__).resolve().parent / "results"
TABLE = RESULTS / "linux_slow_start.md"
NOTES = "## Notes"
#: kernel_compare's families and buffers (packets) where slow start can matter.
KERNEL_POINTS = {
    "reno-1": (4, 8, 17),
    "cubic-1": (4, 8, 17),
    "reno-40": (25, 42, 62, 83, 167),
    "cubic-40": (25, 42, 62, 83, 167),
    # the CUBIC flows beside BBR time out 44-272 times a run: slow start after the warm-up
    "cubic-20+bbr-20": (42, 83, 167, 417, 833, 1667),
}
KERNEL_DURATION_S, KERNEL_WARMUP_S = 20.0, 5.0
NS3_DURATION_S, NS3_WARMUP_S = 30.0, 10.0
#: The user's link of the short-flow comparison: 100 Mbit/s, 100 ms, 1 BDP of buffer.
SHORT_CAPACITY_BPS, SHORT_RTT_S = 100e6, 0.1
#: Transfer sizes (packets of 1448 bytes) sent alone on the idle link: 14.5 kB to 1.45 MB.
SHORT_SIZES = (10, 30, 100, 300, 1000)
#: Poisson flows: Pareto sizes of mean 100 packets (145 kB, shape 1.2 as Scenario's default),
#: arriving for a load of 0.5 of the link.
MIX_MEAN_PACKETS, MIX_LOAD = 100.0, 0.5
MIX_DURATION_S, MIX_WARMUP_S = 60.0, 5.0
#: The mix's flow sizes tabled apart, packets (first, last).
MIX_BINS = ((1, 50), (51, 200), (201, 1000), (1001, 10**9))
#: ACKs grown by Linux's rule, and those held under ssthresh + 1, over the long-flow runs.
TALLY = {"runs": 0, "linux_acks": 0, "measured": 0, "held": 0}


class LinuxSlowStart(ReferenceSimulator):
    """The reference simulator with Linux's slow start (``linux``), recording each finite
    transfer's completion time after the warm-up in ``completions`` (size, seconds)."""

    linux = True

    def __init__(self, scenario: Scenario, buffer_packets: int, seed: int) -> None:
        super().__init__(scenario, buffer_packets, seed, False)
        self.started: dict[int, float] = {}
        self.completions: list[tuple[int, float]] = []
        self.linux_acks = 0  # ACKs that grew cwnd by Linux's rule
        self.linux_acks_measured = 0  # of them, those after the warm-up
        self.held = 0  # of them, those whose growth past ssthresh was cut to under 1 packet

    def start_flow(self, t: float, f: int) -> None:
        super().start_flow(t, f)
        self.started[f] = t

    def complete(self, t: float, f: int) -> None:
        if t >= self.warm and self.started.get(f, -1.0) >= self.warm:
            self.completions.append((self.flows[f].size, t - self.started[f]))
        super().complete(t, f)

    def on_ack(self, t: float, f: int, cum: int, sack_seq: int, ece: bool = False) -> None:
        fl = self.flows[f]
        grows = (
            self.linux
            and cum > fl.snd_una
            and fl.recovery == RecoveryState.NONE
            and fl.bbr is None
            and not self.in_cwr(fl, cum, ece)
            and fl.cwnd < fl.ssthresh
        )
        if grows:
            # the packets this ACK newly delivers (the reference's ``fresh``)
            acked = int(sack_seq >= cum and sack_seq not in fl.sacked)
            acked += sum(1 for s in range(fl.snd_una, cum) if s not in fl.sacked)
            cwnd = min(fl.cwnd + acked, fl.ssthresh)
            left = acked - (cwnd - fl.cwnd) if fl.grp.ca_increase == "bytes_acked" else 0.0
            fl.cwnd = cwnd
            if left > 0:
                if fl.grp.congestion_control == "cubic":
                    self.cubic_increase(t, fl, left)  # type: ignore[arg-type]
                else:
                    fl.cwnd += left / fl.cwnd
            # the reference's own slow-start line adds min(newly, 1) = 1 to what it finds
            # below ssthresh; a window that congestion avoidance took a whole packet past
            # ssthresh is held there (counted: it would take the reference's other branch)
            if fl.cwnd - 1.0 >= fl.ssthresh:
                self.held += 1
                fl.cwnd = np.nextafter(fl.ssthresh, 0.0) + 1.0
            fl.cwnd -= 1.0
            self.linux_acks += 1
            self.linux_acks_measured += t >= self.warm
        super().on_ack(t, f, cum, sack_seq, ece)


def run_variant(scenario: Scenario, buffer_packets: int, seed: int) -> dict[str, Any]:
    """The figures of one run with Linux's slow start."""
    start = time.perf_counter()
    sim = LinuxSlowStart(scenario, buffer_packets, seed)
    result = to_result(sim.p, sim.run(), time.perf_counter() - start, "reference")
    TALLY["runs"] += 1
    TALLY["linux_acks"] += sim.linux_acks
    TALLY["measured"] += sim.linux_acks_measured
    TALLY["held"] += sim.held
    return kernel_compare.figures(result)


def _cells(r: dict[str, Any]) -> list[str]:
    return [
        f"{r['utilization']:.3f}",
        f"{100 * r['loss_rate']:.3f}",
        f"{1e3 * r['queue_delay_mean_s']:.1f}",
    ]


def _mean(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out = {k: float(np.mean([r[k] for r in runs])) for k in ("utilization", "loss_rate",
           "queue_delay_mean_s", "timeouts")}  # fmt: skip
    out["cubic_share"] = float(np.mean([r["shares"].get("cubic", np.nan) for r in runs]))
    return out


def _gaps(ours: dict[str, Any], linux: dict[str, Any], other: dict[str, Any] | None) -> str:
    """bufsize's and the variant's utilization gaps to the other side's, in points."""
    if other is None:
        return ""
    u = other["utilization"]
    return f"{100 * (ours['utilization'] - u):+.1f} / {100 * (linux['utilization'] - u):+.1f}"


def kernel_rows(seeds: list[int]) -> list[str]:
    """Kernel, bufsize and the variant at each chosen point of kernel_compare's families."""
    runs = kernel_compare.load()
    times = f"{KERNEL_DURATION_S:g}/{KERNEL_WARMUP_S:g}"
    families = {f.name: f for f in kernel_compare.FAMILIES}
    rows = [
        "| family | B (pkts) | B/BDP | kernel U | kernel loss % | kernel delay ms | n "
        "| bufsize U | loss % | delay ms | RTOs | Linux slow start U | loss % | delay ms | RTOs "
        "| ΔU to kernel: bufsize / Linux's rule | CUBIC share: kernel / bufsize / Linux's rule |",
        "|" + " --- |" * 17,
    ]
    for name, buffers in KERNEL_POINTS.items():
        family = families[name]
        for b in buffers:
            kernel = kernel_compare._kernel_runs(runs, family, b, seeds, times)
            scenario = family.scenario(KERNEL_DURATION_S, KERNEL_WARMUP_S)
            ours = _mean([
                kernel_compare.simulated(family, b, s, KERNEL_DURATION_S, KERNEL_WARMUP_S)
                for s in seeds
            ])  # fmt: skip
            linux = _mean([run_variant(scenario, b, s) for s in seeds])
            cells = [name, str(b), f"{b / family.bdp_packets():.2f}"]
            if kernel:
                k = _mean([{**r, "timeouts": 0} for r in kernel])
                cells += [*_cells(k), str(len(kernel))]
            else:
                cells += ["not run", "", "", "0"]
            cells += [*_cells(ours), f"{ours['timeouts']:g}"]
            cells += [*_cells(linux), f"{linux['timeouts']:g}"]
            cells.append(_gaps(ours, linux, k if kernel else None))
            shares = [k] if kernel else []
            shares += [ours, linux]
            mixed = len(family.groups) > 1
            cells.append(" / ".join(f"{r['cubic_share']:.3f}" for r in shares) if mixed else "")
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], flush=True)
    return rows


def ns3_rows(seed: int) -> list[str]:
    """ns-3, bufsize and the variant on ns3_compare's Reno, CUBIC and linux_reno rows."""
    runs = ns3_compare.load_ns3_runs()
    rows = [
        "| cc (ns-3's) | B/BDP | B (pkts) | ns-3 U | ns-3 loss % | ns-3 delay ms | bufsize U "
        "| loss % | delay ms | Linux slow start U | loss % | delay ms "
        "| ΔU to ns-3: bufsize / Linux's rule |",
        "|" + " --- |" * 13,
    ]
    todo = ns3_compare.cases(NS3_DURATION_S, NS3_WARMUP_S, ["reno", "cubic", "linux_reno"])
    ns3_names = {"reno": "TcpNewReno", "cubic": "TcpCubic", "linux_reno": "TcpLinuxReno"}
    for case in todo:
        ns3 = runs.get(f"{case.key},seed={seed}")
        ours = ns3_compare.run_bufsize(case, seed)
        assert ours is not None
        linux = run_variant(ns3_compare.bufsize_scenario(case), case.buffer_packets, seed)
        cells = [
            f"{case.cc} ({ns3_names[case.cc]})",
            f"{case.fraction:g}",
            str(case.buffer_packets),
        ]
        cells += _cells(ns3) if ns3 is not None else ["not run", "", ""]
        cells += [*_cells(ours), *_cells(linux)]
        cells.append(_gaps(ours, linux, ns3))
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    return rows


#: Points where one or two seeds showed a move; the paired runs ask whether it is the rule's.
PAIRED_POINTS = (
    ("kernel", "reno-1", 17),
    ("kernel", "cubic-1", 8),
    ("kernel", "reno-40", 25),
    ("kernel", "reno-40", 42),
    ("kernel", "cubic-40", 25),
    ("kernel", "cubic-40", 42),
    ("kernel", "cubic-20+bbr-20", 83),
    ("kernel", "cubic-20+bbr-20", 833),
    ("kernel", "cubic-20+bbr-20", 1667),
    ("ns3", "reno", 59),
    ("ns3", "cubic", 59),
)


def paired_rows(seeds: list[int]) -> list[str]:
    """The rule's own effect: the same seeds (RTTs, start times) with and without it."""
    families = {f.name: f for f in kernel_compare.FAMILIES}
    ns3_cases = {
        (c.cc, c.buffer_packets): c
        for c in ns3_compare.cases(NS3_DURATION_S, NS3_WARMUP_S, ["reno", "cubic"])
    }
    rows = [
        "| comparison | point | B (pkts) | bufsize U (mean) | Linux slow start U (mean) "
        "| ΔU points: mean ± s.e. | seeds up / down | Δloss points: mean ± s.e. "
        "| Δ CUBIC share points: mean ± s.e. |",
        "|" + " --- |" * 9,
    ]
    for where, name, b in PAIRED_POINTS:
        base, linux = [], []
        for seed in seeds:
            if where == "kernel":
                family = families[name]
                scenario = family.scenario(KERNEL_DURATION_S, KERNEL_WARMUP_S)
                ours = kernel_compare.simulated(family, b, seed, KERNEL_DURATION_S, KERNEL_WARMUP_S)
            else:
                case = ns3_cases[(name, b)]
                scenario = ns3_compare.bufsize_scenario(case)
                found = ns3_compare.run_bufsize(case, seed)
                assert found is not None
                ours = found
            base.append(ours)
            linux.append(run_variant(scenario, b, seed))
        pairs = list(zip(base, linux, strict=True))
        du = np.array([100 * (v["utilization"] - o["utilization"]) for o, v in pairs])
        dl = np.array([100 * (v["loss_rate"] - o["loss_rate"]) for o, v in pairs])
        se = float(du.std(ddof=1) / np.sqrt(du.size))
        se_l = float(dl.std(ddof=1) / np.sqrt(dl.size))
        share = ""
        if len(base[0].get("shares", {})) > 1:
            ds = np.array([100 * (v["shares"]["cubic"] - o["shares"]["cubic"]) for o, v in pairs])
            share = f"{ds.mean():+.2f} ± {float(ds.std(ddof=1) / np.sqrt(ds.size)):.2f}"
        rows.append(
            f"| {where} | {name} | {b} | {np.mean([o['utilization'] for o in base]):.3f} "
            f"| {np.mean([v['utilization'] for v in linux]):.3f} | {du.mean():+.2f} ± {se:.2f} "
            f"| {int((du > 0).sum())} / {int((du < 0).sum())} | {dl.mean():+.3f} ± {se_l:.3f} "
            f"| {share} |"
        )
        print(rows[-1], flush=True)
    return rows


def _short_scenario(group: FlowGroup, duration_s: float, warmup_s: float) -> Scenario:
    return Scenario(
        capacity_bps=SHORT_CAPACITY_BPS,
        groups=(group,),
        duration_s=duration_s,
        warmup_s=warmup_s,
    )


def _completions(scenario: Scenario, buffer_packets: int, seed: int, linux: bool) -> Any:
    sim = LinuxSlowStart(scenario, buffer_packets, seed)
    sim.linux = linux
    raw = sim.run()
    result = to_result(sim.p, raw, 0.0, "reference")
    return np.array(sim.completions, dtype=float).reshape(-1, 2), result


def mix_group(delayed_ack: int = FlowGroup.delayed_ack) -> FlowGroup:
    """The Poisson mix's flows: Pareto sizes of mean MIX_MEAN_PACKETS for a load of MIX_LOAD,
    RTTs 80-120 ms, ``delayed_ack`` segments per ACK."""
    wire_bits = 8.0 * 1500
    return FlowGroup(
        name="web",
        flows=400,
        traffic="poisson_flows",
        flow_arrival_rate_per_s=MIX_LOAD * SHORT_CAPACITY_BPS / (MIX_MEAN_PACKETS * wire_bits),
        flow_size_distribution="pareto",
        flow_size_packets=MIX_MEAN_PACKETS,
        rtt_s=SHORT_RTT_S,
        rtt_jitter_s=0.02,
        delayed_ack=delayed_ack,
    )


def short_rows(seed: int) -> list[str]:
    """Completion times of finite flows at 100 Mbit/s, 100 ms: alone, and in a Poisson mix."""
    bdp = round(SHORT_CAPACITY_BPS * SHORT_RTT_S / (8.0 * 1500))
    rows = [
        f"One transfer alone on the idle link ({SHORT_CAPACITY_BPS / 1e6:g} Mbit/s, "
        f"{1e3 * SHORT_RTT_S:g} ms, B = {bdp} packets; its first packet leaves at 0 s):",
        "",
        "| size (pkts) | size (kB) | bufsize s | Linux slow start s | ratio | RTTs saved |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for size in SHORT_SIZES:
        group = FlowGroup(
            name="one",
            flows=1,
            traffic="closed_loop",
            flow_size_distribution="fixed",
            flow_size_packets=float(size),
            rtt_s=SHORT_RTT_S,
            rtt_jitter_s=0.0,
            start_spread_s=0.0,
        )
        fcts = []
        for linux in (False, True):
            done, _ = _completions(_short_scenario(group, 8.0, 0.0), bdp, seed, linux)
            fcts.append(float(done[0, 1]))
        rows.append(
            f"| {size} | {size * 1.448:g} | {fcts[0]:.3f} | {fcts[1]:.3f} "
            f"| {fcts[1] / fcts[0]:.2f} | {(fcts[0] - fcts[1]) / SHORT_RTT_S:.1f} |"
        )
        print(rows[-1], flush=True)
    group = mix_group()
    rate = group.flow_arrival_rate_per_s
    rows += [
        "",
        f"Poisson arrivals ({rate:.1f} flows/s, Pareto sizes of mean {MIX_MEAN_PACKETS:g} "
        f"packets, load {MIX_LOAD:g}; RTTs 80-120 ms; B = {bdp} packets; {MIX_DURATION_S:g} s, "
        f"the first {MIX_WARMUP_S:g} s discarded; flows started and completed after it):",
        "",
        "| sizes (pkts) | flows | bufsize median s | p90 s | Linux slow start median s | p90 s "
        "| median ratio |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    scenario = _short_scenario(group, MIX_DURATION_S, MIX_WARMUP_S)
    mix = [_completions(scenario, bdp, seed, linux) for linux in (False, True)]
    for lo, hi in MIX_BINS:
        cells = [f"{lo}-{hi}" if hi < 10**9 else f">{lo - 1}"]
        stats = []
        for done, _ in mix:
            sel = done[(done[:, 0] >= lo) & (done[:, 0] <= hi), 1]
            stats.append(sel)
        cells.append(" / ".join(str(s.size) for s in stats))
        for sel in stats:
            if sel.size:
                cells += [f"{np.median(sel):.3f}", f"{np.quantile(sel, 0.9):.3f}"]
            else:
                cells += ["", ""]
        if stats[0].size and stats[1].size:
            cells.append(f"{np.median(stats[1]) / np.median(stats[0]):.2f}")
        else:
            cells.append("")
        rows.append("| " + " | ".join(cells) + " |")
        print(rows[-1], flush=True)
    for label, (_, result) in zip(("bufsize", "Linux slow start"), mix, strict=True):
        rows.append(
            f"\n{label}: utilization {result.utilization:.3f}, loss "
            f"{100 * result.loss_rate:.3f} %, mean queueing delay "
            f"{1e3 * result.queue_delay_mean_s:.1f} ms, flows blocked {result.flows_blocked}."
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--parts",
        default="kernel,ns3,paired,short",
        help="comma-separated: kernel, ns3, paired, short",
    )
    parser.add_argument("--paired-seeds", default="1-8", help="seeds of the paired runs (a-b)")
    parser.add_argument("--seeds", default="1,2", help="kernel_compare's seeds")
    parser.add_argument("--seed", type=int, default=1, help="the ns-3 and short-flow seed")
    parser.add_argument("--output", type=Path, default=TABLE, help="markdown file to write")
    args = parser.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    seeds = [int(s) for s in args.seeds.split(",")]
    command = "nice -n 10 .venv/bin/python studies/linux_slow_start.py " + " ".join(
        shlex.quote(a) for a in sys.argv[1:]
    )
    out = [
        "# Linux's slow start in bufsize's simulator (generated by studies/linux_slow_start.py)",
        "",
        f"Command: `{command.strip()}`",
        "",
        "bufsize = the simulator as it is (one packet per ACK in slow start, RFC 5681 eq. 2); "
        "Linux slow start = the reference simulator with `tcp_slow_start`'s rule (cwnd + the "
        "segments acked, up to ssthresh). U = utilization, loss = drops / arrivals at the "
        "bottleneck, delay = mean wait before transmission; RTOs = timeouts in the measured "
        "time (mean of the seeds).",
    ]
    if "kernel" in parts:
        out += ["", f"## Against Linux (stored kernel runs, seeds {args.seeds})", ""]
        out += kernel_rows(seeds)
    if "ns3" in parts:
        out += ["", f"## Against ns-3 3.44 (stored runs, seed {args.seed})", ""]
        out += ns3_rows(args.seed)
    if "paired" in parts:
        lo, hi = (int(x) for x in args.paired_seeds.split("-"))
        out += [
            "",
            f"## The rule's own effect, paired (seeds {lo}-{hi}, each run with and without it)",
            "",
            "Each seed draws the flows' RTTs and start times for both runs, so the difference "
            "is the rule's plus the divergence of two sample paths; s.e. = standard deviation "
            "of the differences / √seeds. kernel: 20 s, 5 s warm-up; ns3: 30 s, 10 s.",
            "",
        ]
        out += paired_rows(list(range(lo, hi + 1)))
    if "short" in parts:
        out += ["", f"## Completion times of finite flows (seed {args.seed})", ""]
        out += short_rows(args.seed)
    if TALLY["runs"]:
        out += [
            "",
            f"Over the {TALLY['runs']} runs with Linux's rule above (kernel, ns3, paired), "
            f"{TALLY['linux_acks']:,} ACKs grew cwnd by it, {TALLY['measured']:,} of them after "
            f"the warm-up; {TALLY['held']} of them would have "
            "taken it a whole packet past ssthresh through the leftover's congestion avoidance "
            "and were held just under ssthresh + 1 (the subclass's one approximation).",
        ]
    text = "\n".join(out) + "\n"
    if args.output.exists():
        old = args.output.read_text()
        if NOTES in old:
            text += "\n" + old[old.index(NOTES) :]
    args.output.write_text(text)


if __name__ == "__main__":
    main()

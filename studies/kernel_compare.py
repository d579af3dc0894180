"""Side by side with Linux's own TCP: the simulator against the kernel testbed, family by family.

Needs root (the testbed builds network namespaces; ``validation.testbed``). Run::

    nice -n -5 .venv/bin/python studies/kernel_compare.py

The kernel's runs are kept in ``studies/results/kernel_runs.json`` (one record per run,
with its sanity checks, the kernel's version and the machine's load) and are not repeated
when the file already holds them, so the simulator's columns can be refreshed without root
(``--no-kernel``). The table is written to ``studies/results/kernel_compare.md`` with the
command that made it; the notes below the table are kept when it is rewritten.

The families (issue 32): one Reno and one CUBIC flow at 20 Mbit/s, 50 ms; 40 Reno and 40
CUBIC flows at 100 Mbit/s, RTTs uniform in 80-120 ms; one BBR flow (20 Mbit/s, 50 ms); 10
BBR flows and 20 CUBIC with 20 BBR flows (100 Mbit/s, 80-120 ms). Each at six buffers from
0.05 to 2 BDP (BDP of the mean RTT in 1500-byte packets), the 40-flow families also at the
issue's 25 and 62 packets, two runs each: run k uses seed k, whose RTTs and start times
(``make_parameters``) both sides share.

Matched definitions. The simulator runs its defaults, which follow Linux: 1448-byte segments
with 52 bytes of headers (the testbed's MTU is 1500 and the timestamp option is on), SACK,
delayed ACKs, initial window 10, minimum RTO 200 ms, a 3 MiB largest window. Its buffer B
counts the packet in transmission, and so does the testbed's ``pfifo`` limit (``htb`` keeps
the packet being "transmitted" in its queue until its tokens are in). Utilization is IP
bytes over the rate in both; loss is drops over arrivals at the bottleneck; the mean queueing
delay is the simulator's mean wait before transmission, and the testbed's time-average of the
backlog's wait sampled every 20 ms (see ``validation/testbed/bed.py``). The mix's share is
the CUBIC flows' part of the flows' throughput.

A run whose sanity checks fail (``validation/testbed/sanity.py``) is tried again up to twice;
a link whose one-Reno-flow check fails is not measured at all.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import shlex
import sys
from pathlib import Path
from typing import Any, cast

from models.choices import CongestionControl
from validation.simulator import FlowGroup, RunResult, Scenario, simulate
from validation.simulator.parameters import make_parameters
from validation.testbed import Flow, Testbed, reno_check, run_problems
from validation.testbed.sanity import stall_problem

RESULTS = Path(__file__).resolve().parent / "results"
KERNEL_RUNS = RESULTS / "kernel_runs.json"
TABLE = RESULTS / "kernel_compare.md"
FRACTIONS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
MTU_BYTES = 1500
#: Goals (issue 32): utilization points (mean, worst) per family, loss factor above 0.1 %,
#: mean queueing delay ratio, the mix's share in points.
GOAL_U_MEAN, GOAL_U_WORST, GOAL_LOSS, GOAL_DELAY, GOAL_SHARE = 3.0, 5.0, 1.5, 0.2, 10.0
NOTES_MARK = "## Notes"


@dataclasses.dataclass(frozen=True)
class Family:
    """A congestion-control family: its flow groups (name, cc, flows) and its link."""

    name: str
    groups: tuple[tuple[str, int], ...]  # (congestion control, flows)
    capacity_bps: float
    rtt_s: float
    rtt_jitter_s: float
    extra_buffers: tuple[int, ...] = ()  # packets, beside the six fractions of the BDP

    def scenario(self, duration_s: float, warmup_s: float) -> Scenario:
        """The simulator's scenario: one group per congestion control."""
        groups = tuple(
            FlowGroup(
                name=cc,
                flows=n,
                congestion_control=cast(CongestionControl, cc),
                rtt_s=self.rtt_s,
                rtt_jitter_s=self.rtt_jitter_s,
            )
            for cc, n in self.groups
        )
        return Scenario(
            capacity_bps=self.capacity_bps,
            groups=groups,
            duration_s=duration_s,
            warmup_s=warmup_s,
        )

    def bdp_packets(self) -> float:
        """The BDP of the mean RTT in 1500-byte packets."""
        return self.capacity_bps * self.rtt_s / (8.0 * MTU_BYTES)

    def buffers(self) -> list[int]:
        """The six buffers, packets (at least 2), then the extra ones."""
        return [max(2, round(f * self.bdp_packets())) for f in FRACTIONS] + list(self.extra_buffers)

    def points(self) -> list[tuple[float, int]]:
        """(B/BDP, B) of every buffer, smallest first."""
        bdp = self.bdp_packets()
        fractions = list(FRACTIONS) + [b / bdp for b in self.extra_buffers]
        return sorted(zip(fractions, self.buffers(), strict=True), key=lambda p: p[1])


FAMILIES = (
    Family("reno-1", (("reno", 1),), 20e6, 0.05, 0.0),
    Family("cubic-1", (("cubic", 1),), 20e6, 0.05, 0.0),
    # the issue's own 25 and 62 packets (0.03 and 0.07 BDP), where Linux was measured first
    Family("reno-40", (("reno", 40),), 100e6, 0.1, 0.02, (25, 62)),
    Family("cubic-40", (("cubic", 40),), 100e6, 0.1, 0.02, (25, 62)),
    Family("bbr-1", (("bbr", 1),), 20e6, 0.05, 0.0),
    Family("bbr-10", (("bbr", 10),), 100e6, 0.1, 0.02),
    Family("cubic-20+bbr-20", (("cubic", 20), ("bbr", 20)), 100e6, 0.1, 0.02),
)


def key(family: Family, buffer_packets: int, seed: int, duration_s: float, warmup_s: float) -> str:
    """The record's key in kernel_runs.json."""
    return f"{family.name},B={buffer_packets},seed={seed},T={duration_s:g}/{warmup_s:g}"


def kernel_flows(family: Family, scenario: Scenario, buffer_packets: int, seed: int) -> list[Flow]:
    """The testbed's flows: the simulator's RTTs and start times for ``seed``."""
    drawn = make_parameters(scenario, buffer_packets, seed)
    ccs = [cc for cc, n in family.groups for _ in range(n)]
    return [
        Flow(cc, float(rtt), float(start), group=cc)
        for cc, rtt, start in zip(ccs, drawn.rtt_s, drawn.start_s, strict=True)
    ]


def load() -> dict[str, Any]:
    """The stored kernel runs."""
    return dict(json.loads(KERNEL_RUNS.read_text())) if KERNEL_RUNS.exists() else {}


def save(runs: dict[str, Any]) -> None:
    """Store the kernel runs."""
    RESULTS.mkdir(exist_ok=True)
    KERNEL_RUNS.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")


def run_kernel(
    families: list[Family], seeds: list[int], duration_s: float, warmup_s: float
) -> None:
    """Run (and store) every kernel run not stored yet, one link's testbed at a time."""
    runs = load()
    for family in families:
        scenario = family.scenario(duration_s, warmup_s)
        todo = [
            (b, s) for b in family.buffers() for s in seeds
            if key(family, b, s, duration_s, warmup_s) not in runs
        ]  # fmt: skip
        if not todo:
            continue
        with Testbed(family.capacity_bps, todo[0][0], MTU_BYTES) as bed:
            check, problems = reno_check(bed, family.rtt_s)
            print(
                f"{family.name}: one Reno flow, 2 BDP: U={check.utilization:.4f} "
                f"problems={problems} load={os.getloadavg()[0]:.1f}",
                flush=True,
            )
            runs[f"check,{family.name},T={duration_s:g}/{warmup_s:g}"] = {
                "utilization": check.utilization,
                "problems": problems,
                "load_1min": os.getloadavg()[0],
            }
            if problems:
                save(runs)
                continue
            for buffer_packets, seed in todo:
                bed.set_buffer(buffer_packets)
                flows = kernel_flows(family, scenario, buffer_packets, seed)
                tries = []
                for _ in range(3):
                    load_before = os.getloadavg()[0]
                    measured = bed.run(flows, warmup_s=warmup_s, measure_s=duration_s - warmup_s)
                    problems = run_problems(measured)
                    tries.append(problems)
                    if not problems:
                        break
                record = measured.as_dict()
                record.update(
                    shares={cc: measured.group_share(cc) for cc, _ in family.groups},
                    problems=problems,
                    refused_tries=[p for p in tries if p],
                    load_1min=load_before,
                )
                runs[key(family, buffer_packets, seed, duration_s, warmup_s)] = record
                save(runs)
                print(
                    f"{family.name} B={buffer_packets} seed={seed}: "
                    f"U={measured.utilization:.4f} loss={measured.loss_rate:.5f} "
                    f"delay={1e3 * measured.queue_delay_mean_s:.2f} ms "
                    f"late={1e3 * measured.forwarder_late.get('mean_s', math.nan):.3f} ms "
                    f"problems={problems} load={load_before:.1f} wall={measured.wall_s:.0f} s",
                    flush=True,
                )


def simulated(
    family: Family, buffer_packets: int, seed: int, duration_s: float, warmup_s: float
) -> dict[str, Any]:
    """The simulator's run of the same point."""
    return figures(simulate(family.scenario(duration_s, warmup_s), buffer_packets, seed))


def figures(result: RunResult) -> dict[str, Any]:
    """The table's figures of one simulated run."""
    total = sum(g.throughput_bps for g in result.groups)
    return {
        "utilization": result.utilization,
        "loss_rate": result.loss_rate,
        "queue_delay_mean_s": result.queue_delay_mean_s,
        "timeouts": result.timeouts,
        "shares": {g.name: g.throughput_bps / total for g in result.groups},
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _kernel_runs(
    runs: dict[str, Any], family: Family, buffer_packets: int, seeds: list[int], times: str
) -> list[dict[str, Any]]:
    """The stored kernel runs of one point that passed their sanity checks (the stall rule
    applied here too, to runs stored before it was a check)."""
    found = [runs.get(f"{family.name},B={buffer_packets},seed={s},T={times}") for s in seeds]
    return [
        k
        for k in found
        if k is not None
        and not k["problems"]
        and "stall_drops" in k["forwarder_late"]
        and stall_problem(k["drops"], k["forwarder_late"]) is None
    ]


def table(
    families: list[Family], seeds: list[int], duration_s: float, warmup_s: float
) -> tuple[list[str], list[str]]:
    """The table's rows and the per-family summary lines."""
    runs = load()
    times = f"{duration_s:g}/{warmup_s:g}"
    rows, summary = [], []
    for family in families:
        gaps, loss_misses, delay_misses, share_gaps = [], [], [], []
        for fraction, buffer_packets in family.points():
            kernel = _kernel_runs(runs, family, buffer_packets, seeds, times)
            sims = [simulated(family, buffer_packets, s, duration_s, warmup_s) for s in seeds]
            su = _mean([r["utilization"] for r in sims])
            sl = _mean([r["loss_rate"] for r in sims])
            sd = _mean([r["queue_delay_mean_s"] for r in sims])
            point = f"| {family.name} | {fraction:.2g} | {buffer_packets} |"
            st = _mean([r["timeouts"] for r in sims])
            ours = f"{su:.3f} | {100 * sl:.3f} | {1e3 * sd:.1f} | {st:.0f} |"
            if not kernel:
                stored = any(
                    f"{family.name},B={buffer_packets},seed={s},T={times}" in runs for s in seeds
                )
                rows.append(f"{point} {'refused' if stored else 'not run'} | | | | 0 | {ours} | |")
                continue
            ku = _mean([k["utilization"] for k in kernel])
            kl = _mean([k["loss_rate"] for k in kernel])
            kd = _mean([k["queue_delay_mean_s"] for k in kernel])
            gap = 100 * (su - ku)
            gaps.append(abs(gap))
            if kl > 0.001 and not (1 / GOAL_LOSS <= sl / kl <= GOAL_LOSS):
                loss_misses.append(f"{fraction:g}: {sl / kl:.2f}x")
            if kd > 0 and abs(sd / kd - 1) > GOAL_DELAY:
                delay_misses.append(f"{fraction:g}: {sd / kd:.2f}x")
            share = ""
            if len(family.groups) > 1:
                ks = _mean([k["shares"]["cubic"] for k in kernel])
                ss = _mean([r["shares"]["cubic"] for r in sims])
                share_gaps.append(abs(100 * (ss - ks)))
                share = f"{ks:.3f} / {ss:.3f}"
            spread = ", ".join(f"{k['utilization']:.3f}" for k in kernel)
            counted = [k["tcp_counters"]["TCPTimeouts"] for k in kernel if k.get("tcp_counters")]
            kt = f"{_mean(counted):.0f}" if counted else ""
            rows.append(
                f"{point} {ku:.3f} ({spread}) | {100 * kl:.3f} | {1e3 * kd:.1f} | {kt} | "
                f"{len(kernel)} | {ours} {gap:+.1f} | {share} |"
            )
        if gaps:
            line = (
                f"- **{family.name}**: mean |ΔU| {_mean(gaps):.1f} points, worst {max(gaps):.1f} "
                f"(goal {GOAL_U_MEAN:g} / {GOAL_U_WORST:g}); loss outside a factor {GOAL_LOSS:g} "
                f"(where the kernel's > 0.1 %): {', '.join(loss_misses) or 'none'}; mean delay "
                f"outside ±{100 * GOAL_DELAY:g} %: {', '.join(delay_misses) or 'none'}"
            )
            if share_gaps:
                line += (
                    f"; CUBIC share gap mean {_mean(share_gaps):.1f}, worst "
                    f"{max(share_gaps):.1f} points (goal {GOAL_SHARE:g})"
                )
            summary.append(line)
    return rows, summary


def write_keeping_notes(table: Path, heading: str, body: list[str]) -> str:
    """Write ``heading``, the command that ran (this script, its arguments) and ``body`` to
    ``table``, keeping the notes written by hand below ``NOTES_MARK``; the text written
    (without the notes)."""
    old = table.read_text() if table.exists() else ""
    notes = old[old.index(NOTES_MARK) :] if NOTES_MARK in old else ""
    command = f".venv/bin/python studies/{Path(sys.argv[0]).name} {shlex.join(sys.argv[1:])}"
    text = "\n".join([heading, "", f"Command: `{command.strip()}`", "", *body])
    table.parent.mkdir(exist_ok=True)
    table.write_text(text + ("\n" + notes if notes else ""))
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration-s", type=float, default=20.0, help="seconds a run lasts")
    parser.add_argument("--warmup-s", type=float, default=5.0, help="seconds discarded first")
    parser.add_argument("--runs", type=int, default=2, help="runs per point (seeds 1..runs)")
    parser.add_argument("--families", default=",".join(f.name for f in FAMILIES))
    parser.add_argument("--no-kernel", action="store_true", help="table from the stored runs")
    args = parser.parse_args()
    families = [f for f in FAMILIES if f.name in args.families.split(",")]
    seeds = list(range(1, args.runs + 1))
    if not args.no_kernel:
        run_kernel(families, seeds, args.duration_s, args.warmup_s)
    rows, summary = table(list(FAMILIES), seeds, args.duration_s, args.warmup_s)
    runs = load()
    kernels = sorted({r.get("kernel", "?") for k, r in runs.items() if not k.startswith("check")})
    checks = [
        f"{k.split(',')[1]}: U={r['utilization']:.4f}"
        + (" REFUSED " + "; ".join(r["problems"]) if r["problems"] else "")
        for k, r in runs.items()
        if k.startswith("check")
    ]
    loads = [r["load_1min"] for k, r in runs.items() if "load_1min" in r]
    header = (
        f"Linux {', '.join(kernels)}; {args.duration_s:g} s a run, the first "
        f"{args.warmup_s:g} s discarded; seeds {', '.join(map(str, seeds))} (kernel and "
        "simulator share each seed's RTTs and start times); load average (1 min) during the "
        f"kernel runs {min(loads, default=0):.1f}-{max(loads, default=0):.1f} on 2 cores. "
        "U = utilization (the kernel's mean, then each run's), loss = drops / arrivals at the "
        "bottleneck, delay = mean wait before transmission; n = kernel runs that passed the "
        "sanity checks; RTOs = retransmission timeouts in the measured time (the kernel's "
        "TcpExt TCPTimeouts, where recorded); ΔU = bufsize - kernel in points; share = the "
        "CUBIC flows' part of the throughput (kernel / bufsize)."
    )
    columns = (
        "family", "B/BDP", "B (pkts)", "kernel U", "kernel loss %", "kernel delay ms",
        "kernel RTOs", "n", "bufsize U", "bufsize loss %", "bufsize delay ms", "bufsize RTOs",
        "ΔU", "share",
    )  # fmt: skip
    text = write_keeping_notes(
        TABLE,
        "# bufsize beside Linux's TCP (generated by studies/kernel_compare.py)",
        [
            header,
            "",
            "One Reno flow with 2 BDP of buffer, per link (sanity check, at least 0.99): "
            + "; ".join(checks),
            "",
            "| " + " | ".join(columns) + " |",
            "| " + " | ".join("---" for _ in columns) + " |",
            *rows,
            "",
            "Per family against the goals:",
            "",
            *summary,
            "",
        ],
    )
    print(text)


if __name__ == "__main__":
    main()

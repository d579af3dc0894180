"""How packets reach the port in Linux's testbed and in the simulator: one flow, small buffers.

The question (issue 32): at 0.05 BDP (4 packets) one Reno or CUBIC flow carries 0.55-0.59 of a
20 Mbit/s, 50 ms link in the kernel testbed and 0.76 / 0.88 in bufsize, and loses 4-7 times as
much, while from 8 packets up the two agree within 3.3 points (``kernel_compare.md``). With
the same mean queue, more drops mean burstier arrivals; this study measures the arrivals on
both sides: the backlog each data packet finds at the port (k packets there, the one in
transmission included; "full" = dropped), the trains of data packets that reach the port
back to back (less than 50 µs apart: one sender's burst), and the trains of ACKs that reach
the sender that close together (the testbed's delay line lets them go; in the simulator each
ACK's arrival at the sender).

Kernel side: the testbed's forwarder counts them (``validation/testbed/forwarder.py``); runs
need root and are stored in ``results/kernel_bursts.json`` (``--no-kernel`` reuses them; a
stored run the sanity checks refused is run again, the refused record kept aside).
Simulator side: the reference simulator (``validation.simulator.reference``, which the compiled
core matches event for event) with the same counts taken at its port and at its senders,
same scenario, seed and measured window as ``kernel_compare.py``. Run from the repository's
root::

    sudo .venv/bin/python studies/kernel_bursts.py [--no-kernel]

Writes ``results/kernel_bursts.md`` (the notes below its tables are kept): the points asked
for and every point stored in ``results/kernel_bursts.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
from pathlib import Path
from typing import Any

from kernel_compare import FAMILIES, MTU_BYTES, Family, kernel_flows, write_keeping_notes

from validation.simulator.measures import to_result
from validation.simulator.reference.simulator import ReferenceSimulator
from validation.testbed import Testbed, run_problems
from validation.testbed.forwarder import TRAIN_GAP_S

RESULTS = Path(__file__).resolve().parent / "results"
RUNS = RESULTS / "kernel_bursts.json"
TABLE = RESULTS / "kernel_bursts.md"
DURATION_S, WARMUP_S = 20.0, 5.0


class _Trains:
    """Lengths of runs of events less than TRAIN_GAP_S apart (the forwarder's rule)."""

    def __init__(self) -> None:
        self.counts: collections.Counter[int] = collections.Counter()
        self.last_s = -1.0
        self.length = 0

    def add(self, t: float) -> None:
        if self.length and t - self.last_s >= TRAIN_GAP_S:
            self.counts[self.length] += 1
            self.length = 0
        self.length += 1
        self.last_s = t


class _Watched(ReferenceSimulator):
    """The reference, counting after the warm-up what the forwarder counts."""

    def __init__(self, family: Family, buffer_packets: int, seed: int) -> None:
        super().__init__(family.scenario(DURATION_S, WARMUP_S), buffer_packets, seed, False)
        self.buffer = buffer_packets
        self.backlog: collections.Counter[int] = collections.Counter()
        self.trains, self.ack_trains = _Trains(), _Trains()

    def arrive(self, t: float, f: int, epoch: int, seq: int, size: float, flags: int = 0) -> None:
        if t >= self.warm and f < self.p.flows:
            self.backlog[min(self.q_packets, self.buffer)] += 1
            self.trains.add(t)
        super().arrive(t, f, epoch, seq, size, flags)

    def on_ack(self, t: float, f: int, cum: int, sack_seq: int, ece: bool = False) -> None:
        if t >= self.warm:
            self.ack_trains.add(t)
        super().on_ack(t, f, cum, sack_seq, ece)


def simulated(family: Family, buffer_packets: int, seed: int) -> dict[str, Any]:
    """The reference's run of the point, with the arrival counts."""
    sim = _Watched(family, buffer_packets, seed)
    result = to_result(sim.p, sim.run(), 0.0, "reference")
    return {
        "utilization": result.utilization,
        "arrival_counts": {
            "backlog_found": {str(k): v for k, v in sorted(sim.backlog.items())},
            "trains": {str(k): v for k, v in sorted(sim.trains.counts.items())},
            "ack_trains": {str(k): v for k, v in sorted(sim.ack_trains.counts.items())},
        },
    }


def kernel(family: Family, buffer_packets: int, seed: int) -> dict[str, Any]:
    """One testbed run of the point (up to three tries while its sanity checks fail)."""
    scenario = family.scenario(DURATION_S, WARMUP_S)
    flows = kernel_flows(family, scenario, buffer_packets, seed)
    with Testbed(family.capacity_bps, buffer_packets, MTU_BYTES) as bed:
        for _ in range(3):
            load = os.getloadavg()[0]
            measured = bed.run(flows, warmup_s=WARMUP_S, measure_s=DURATION_S - WARMUP_S)
            problems = run_problems(measured)
            if not problems:
                break
    record = measured.as_dict()
    record.update(problems=problems, load_1min=load)
    return record


def _summary(counts: dict[str, dict[str, int]], buffer_packets: int) -> str:
    """Drops, P(found full), P(found k >= 1), packets in trains of 3+ and 5+, ACKs in trains
    of 2+, after the warm-up."""
    found = {int(k): v for k, v in counts["backlog_found"].items()}
    arrivals = sum(found.values())
    trains = {int(k): v for k, v in counts["trains"].items()}
    packets = sum(k * v for k, v in trains.items())
    acks = {int(k): v for k, v in counts["ack_trains"].items()}
    ack_total = sum(k * v for k, v in acks.items())

    def share(part: float, whole: float) -> str:
        return f"{100 * part / whole:.2f}" if whole else "-"

    return " | ".join(
        [
            f"{found.get(buffer_packets, 0)}",
            share(found.get(buffer_packets, 0), arrivals),
            share(sum(v for k, v in found.items() if k >= 1), arrivals),
            share(sum(k * v for k, v in trains.items() if k >= 3), packets),
            share(sum(k * v for k, v in trains.items() if k >= 5), packets),
            f"{max(trains, default=0)}",
            share(sum(k * v for k, v in acks.items() if k >= 2), ack_total),
            f"{max(acks, default=0)}",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="reno-1,cubic-1")
    parser.add_argument("--buffers", default="4,8", help="buffer sizes, packets")
    parser.add_argument("--seeds", default="1", help="seeds, comma-separated")
    parser.add_argument("--no-kernel", action="store_true", help="use the stored kernel runs")
    args = parser.parse_args()
    families = [f for f in FAMILIES if f.name in args.families.split(",")]
    buffers = [int(b) for b in args.buffers.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else {}
    columns = (
        "family", "B", "seed", "side", "U", "drops", "% found full", "% found a queue",
        "% packets in trains of 3+", "of 5+", "longest train", "% ACKs in trains of 2+",
        "longest ACK train",
    )  # fmt: skip
    rows = ["| " + " | ".join(columns) + " |", "| " + " | ".join("---" for _ in columns) + " |"]
    asked = [(f.name, b, s) for f in families for b in buffers for s in seeds]
    by_name = {f.name: f for f in FAMILIES}
    order = list(by_name)
    stored = [k.split(",") for k in runs if len(k.split(",")) == 3]  # not the refused ones
    points = sorted(
        set(asked) | {(n, int(b[2:]), int(s[5:])) for n, b, s in stored if n in by_name},
        key=lambda p: (order.index(p[0]), p[1], p[2]),
    )
    for name, buffer_packets, seed in points:
        family = by_name[name]
        key = f"{name},B={buffer_packets},seed={seed}"
        stored_refused = key in runs and bool(runs[key]["problems"])
        wanted = (name, buffer_packets, seed) in asked
        if wanted and (key not in runs or stored_refused) and not args.no_kernel:
            if stored_refused:  # kept aside; a quieter machine may pass the checks now
                aside = sum(k.startswith(key + ",refused") for k in runs)
                runs[f"{key},refused-{aside + 1}"] = runs.pop(key)
            runs[key] = kernel(family, buffer_packets, seed)
            RESULTS.mkdir(exist_ok=True)
            RUNS.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")
        sides = [("bufsize", simulated(family, buffer_packets, seed))]
        if key in runs:
            sides.insert(0, ("Linux", runs[key]))
        for side, run in sides:
            refused = (
                " (refused: " + "; ".join(run["problems"]) + ")" if run.get("problems") else ""
            )
            rows.append(
                f"| {name} | {buffer_packets} | {seed} | {side}{refused} | "
                f"{run['utilization']:.3f} | "
                f"{_summary(run['arrival_counts'], buffer_packets)} |"
            )
        print(rows[-1], flush=True)
    text = write_keeping_notes(
        TABLE,
        "# How packets reach the port: Linux's testbed and bufsize (studies/kernel_bursts.py)",
        [
            f"{DURATION_S:g} s a run, the first {WARMUP_S:g} s discarded; counts after the "
            f"warm-up. A train: packets less than {1e6 * TRAIN_GAP_S:.0f} µs apart. 'Found a "
            "queue': the packet found at least one packet at the port (in transmission or "
            "waiting).",
            "",
            *rows,
            "",
        ],
    )
    print(text)


if __name__ == "__main__":
    main()

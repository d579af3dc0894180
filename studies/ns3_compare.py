"""Side by side with ns-3: the same dumbbell in ns-3 3.44 and in bufsize's packet simulator.

Run ``make ns3`` once (it installs the PyPI package ``ns3`` into the venv), then::

    nice -n 19 .venv/bin/python studies/ns3_compare.py

The ns-3 runs are kept in ``studies/results/ns3_runs.json`` (one record per run, with its
parameters and wall time) and are not repeated when the file already holds them, so the
bufsize columns can be refreshed without ns-3 (``--no-ns3`` never imports it). The table is
printed and written to ``studies/results/ns3_compare.md`` with the command that made it.

The cases (issue 14, item 7):

- Reno and CUBIC: 100 Mb/s, 40 flows, RTTs uniform in 100 ms ± 20%, 1 Gb/s access links,
  buffers from 0.05 to 1 BDP.
- BBR (v1): one flow, 100 Mb/s, 100 ms (ns-3's BBR is too slow with several flows).
- DCTCP: the 40-flow dumbbell with a 1 BDP buffer that marks CE when an arrival finds K
  packets waiting in the disc (ns-3: a RED queue disc with QW = 1 and MinTh = MaxTh = K, see
  ``ns3_dumbbell.py``); the port then holds K + 2 packets (device queue and transmission),
  which is the threshold handed to bufsize. The table's K is ns-3's.

Matched definitions (ns-3 -> bufsize):

- Buffer: ns-3's point-to-point device dequeues the packet it transmits, so an ns-3 queue of
  B - 1 packets is bufsize's ``buffer_packets = B`` (the packet in transmission counted). With
  the RED disc the device keeps one more packet in its own queue: disc limit B - 2.
- Packets: 1000 B of payload (``SegmentSize``) plus 54 B of headers on the wire (TCP 20 +
  timestamp option 12, IPv4 20, PPP 2) = ``header_bytes = 54``. BDP = C·RTT / (8·1054 B).
- ns-3's defaults that bufsize is set to: SACK with ns-3's PRR recovery (bufsize
  ``recovery="sack"``), delayed ACK every 2 segments with a 200 ms timer, initial window 10,
  minimum RTO 1 s.
- Windows: send and receive buffers of 4 MB in ns-3, ``max_window_packets = 4000`` in
  bufsize; neither limits a flow here (the largest fair share of 2 BDP is 60 packets).
- RTTs and start times: each flow's two-way propagation delay and start time are the ones
  bufsize draws for the seed (``make_parameters``); ns-3 puts rtt_i / 2 on the flow's access
  link (crossed by data one way and by ACKs the other).
- CUBIC: ns-3's HyStart is switched off (RFC 9438 standard slow start in both).
- Measures after the warm-up: utilization = bytes whose transmission ended on the bottleneck
  (headers included) / capacity; loss = drops / arrivals at the bottleneck; mean queueing
  delay = mean wait before transmission of the packets that left (ns-3: Little's law on the
  time-integral of the packets waiting, the one in transmission excluded).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from validation.simulator import Scenario, simulate
from validation.simulator.parameters import make_parameters

RESULTS = Path(__file__).resolve().parent / "results"
NS3_RUNS = RESULTS / "ns3_runs.json"
TABLE = RESULTS / "ns3_compare.md"
#: Socket buffers in ns-3 (bytes of payload), the same window as max_window_packets.
WINDOW_PACKETS = 4000
PACKET_BYTES = 1000
HEADER_BYTES = 54

BASE = Scenario(
    capacity_bps=100e6,
    flows=40,
    rtt_s=0.1,
    rtt_jitter_s=0.02,
    access_bps=1e9,
    max_window_packets=WINDOW_PACKETS,
    packet_bytes=PACKET_BYTES,
    header_bytes=HEADER_BYTES,
    recovery="sack",
    delayed_ack=2,
    delayed_ack_timeout_s=0.2,
    initial_window_packets=10,
    min_rto_s=1.0,
    start_spread_s=1.0,
)
ONE_FLOW = BASE.replace(flows=1, rtt_jitter_s=0.0)
#: Fractions of the BDP for the drop-tail sweeps.
FRACTIONS = (0.05, 0.1, 0.2, 0.5, 1.0)
#: ns-3's BBR spends minutes of CPU per simulated second while its Startup overshoots a small
#: buffer (a 4 s run at 0.1 BDP took 77 CPU s), so BBR runs at the larger buffers, largest first.
BBR_FRACTIONS = (1.0, 0.5, 0.25)
#: Buffers at which ns-3's TcpLinuxReno is run beside bufsize's Reno (not part of the default).
LINUX_FRACTIONS = (0.05,)
#: Marking thresholds for DCTCP, as fractions of the BDP (1/7 is Alizadeh et al.'s bound).
DCTCP_K_FRACTIONS = (1.0 / 7.0, 0.05)


def bdp_packets(scenario: Scenario) -> float:
    """Bandwidth-delay product of the mean RTT in packets on the wire."""
    return scenario.capacity_bps * scenario.rtt_s / (8.0 * scenario.wire_bytes)


@dataclasses.dataclass(frozen=True)
class Case:
    """One row of the table: a congestion control, a scenario, a buffer and a threshold."""

    cc: str
    scenario: Scenario
    fraction: float
    buffer_packets: int  # bufsize's B, the packet in transmission included
    ecn_threshold_packets: int | None = None

    @property
    def key(self) -> str:
        k = "" if self.ecn_threshold_packets is None else f",K={self.ecn_threshold_packets}"
        return (
            f"{self.cc},N={self.scenario.flows},B={self.buffer_packets}{k},"
            f"T={self.scenario.duration_s:g}/{self.scenario.warmup_s:g}"
        )


def cases(duration_s: float, warmup_s: float, which: list[str]) -> list[Case]:
    """The table's rows, in the order they are run."""
    many = BASE.replace(duration_s=duration_s, warmup_s=warmup_s)
    one = ONE_FLOW.replace(duration_s=duration_s, warmup_s=warmup_s)
    out: list[Case] = []
    for cc in ("reno", "cubic"):
        if cc in which:
            bdp = bdp_packets(many)
            out += [Case(cc, many, f, max(2, round(f * bdp))) for f in FRACTIONS]
    if "linux_reno" in which:  # ns-3's byte-counting Reno beside bufsize's Reno (see notes)
        bdp = bdp_packets(many)
        out += [Case("linux_reno", many, f, max(2, round(f * bdp))) for f in LINUX_FRACTIONS]
    if "dctcp" in which:
        bdp = bdp_packets(many)
        out += [
            Case("dctcp", many, 1.0, round(bdp), max(1, round(k * bdp))) for k in DCTCP_K_FRACTIONS
        ]
    if "bbr" in which:
        bdp = bdp_packets(one)
        out += [Case("bbr", one, f, max(2, round(f * bdp))) for f in BBR_FRACTIONS]
    return out


def ns3_spec(case: Case, seed: int) -> Any:
    """The ns-3 run of a case (imports ns-3)."""
    import ns3_dumbbell

    params = make_parameters(case.scenario, case.buffer_packets, seed)
    marking = case.ecn_threshold_packets is not None
    return ns3_dumbbell.Ns3Run(
        cc=case.cc,
        capacity_bps=case.scenario.capacity_bps,
        access_bps=case.scenario.access_bps,
        rtts_s=tuple(float(x) for x in params.rtt_s),
        starts_s=tuple(float(x) for x in params.start_s),
        ns3_queue_packets=case.buffer_packets - (2 if marking else 1),
        packet_bytes=case.scenario.packet_bytes,
        min_rto_s=case.scenario.min_rto_s,
        initial_window_packets=case.scenario.initial_window_packets,
        delayed_ack=case.scenario.delayed_ack,
        socket_buffer_bytes=case.scenario.max_window_packets * case.scenario.packet_bytes,
        duration_s=case.scenario.duration_s,
        warmup_s=case.scenario.warmup_s,
        seed=seed,
        ecn_threshold_packets=case.ecn_threshold_packets,
    )


def load_ns3_runs() -> dict[str, Any]:
    if NS3_RUNS.exists():
        runs: dict[str, Any] = json.loads(NS3_RUNS.read_text())
        return runs
    return {}


def run_ns3(todo: list[Case], seed: int) -> dict[str, Any]:
    """Run the cases ns-3 has no record of yet, one at a time, saving after each."""
    runs = load_ns3_runs()
    missing = [c for c in todo if f"{c.key},seed={seed}" not in runs]
    if not missing:
        return runs
    start = time.perf_counter()
    import ns3_dumbbell  # the import compiles ns-3's headers with Cling: about a minute

    print(f"ns-3 {ns3_dumbbell.version()} imported in {time.perf_counter() - start:.0f} s")
    for case in missing:
        spec = ns3_spec(case, seed)
        result = ns3_dumbbell.run(spec)
        record = {"spec": dataclasses.asdict(spec), "ns3_version": ns3_dumbbell.version()}
        record.update(result)
        runs[f"{case.key},seed={seed}"] = record
        RESULTS.mkdir(exist_ok=True)
        NS3_RUNS.write_text(json.dumps(runs, indent=1, sort_keys=True) + "\n")
        print(
            f"ns-3 {case.key}: U={result['utilization']:.3f} loss={result['loss_rate']:.4f} "
            f"delay={1e3 * result['queue_delay_mean_s']:.1f} ms wall={result['wall_s']:.0f} s",
            flush=True,
        )
    return runs


def bufsize_scenario(case: Case) -> Scenario:
    """The bufsize scenario of a case: its congestion control and marking threshold."""
    changes: dict[str, Any] = {}
    if case.cc not in ("reno", "linux_reno"):  # bufsize's Reno counts segments, as Linux
        changes["congestion_control"] = case.cc
    if case.ecn_threshold_packets is not None:
        # ns-3's RED compares the packets in the disc; the port also holds one packet in the
        # device queue and one in transmission, which bufsize counts (as in buffer_packets).
        changes["ecn_threshold_packets"] = case.ecn_threshold_packets + 2
    return case.scenario.replace(**changes) if changes else case.scenario


def run_bufsize(case: Case, seed: int) -> dict[str, Any] | None:
    try:
        result = simulate(bufsize_scenario(case), case.buffer_packets, seed)
    except ValueError as error:  # a congestion control name the simulator does not take yet
        print(f"bufsize {case.key}: {error}", file=sys.stderr)
        return None
    return {
        "utilization": result.utilization,
        "loss_rate": result.loss_rate,
        "queue_delay_mean_s": result.queue_delay_mean_s,
        "wall_s": result.wall_s,
    }


def fmt_row(case: Case, ns3: dict[str, Any] | None, ours: dict[str, Any] | None) -> str:
    k = "" if case.ecn_threshold_packets is None else str(case.ecn_threshold_packets)
    cells = [
        case.cc,
        str(case.scenario.flows),
        f"{case.fraction:g}",
        str(case.buffer_packets),
        k,
    ]
    for r, missing in ((ns3, "not run"), (ours, "not yet simulated")):
        if r is None:
            cells += [missing, "", "", ""]
        else:
            cells += [
                f"{r['utilization']:.3f}",
                f"{100 * r['loss_rate']:.3f}",
                f"{1e3 * r['queue_delay_mean_s']:.1f}",
                f"{r['wall_s']:.1f}",
            ]
    if ns3 is not None and ours is not None:
        cells.append(f"{100 * (ours['utilization'] - ns3['utilization']):+.1f}")
    else:
        cells.append("")
    return "| " + " | ".join(cells) + " |"


#: Heading of the hand-written notes that explain gaps; kept when the table is rewritten.
NOTES = "## Notes on the gaps"

HEADER = (
    "| cc | flows | B/BDP | B (pkts) | K (pkts) | ns-3 U | ns-3 loss % | ns-3 delay ms "
    "| ns-3 wall s | bufsize U | bufsize loss % | bufsize delay ms | bufsize wall s "
    "| ΔU points |\n" + "|" + " --- |" * 14
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration-s", type=float, default=30.0, help="simulated seconds")
    parser.add_argument("--warmup-s", type=float, default=10.0, help="discarded seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cc", default="reno,cubic,dctcp,bbr", help="comma-separated congestion controls"
    )
    parser.add_argument("--no-ns3", action="store_true", help="use only recorded ns-3 runs")
    parser.add_argument("--ns3-only", action="store_true", help="run ns-3, not bufsize")
    parser.add_argument("--output", type=Path, default=TABLE, help="markdown table to write")
    args = parser.parse_args()
    which = [c.strip() for c in args.cc.split(",") if c.strip()]
    todo = cases(args.duration_s, args.warmup_s, which)
    runs = load_ns3_runs() if args.no_ns3 else run_ns3(todo, args.seed)
    if args.ns3_only:
        return
    # compile the simulator's core once, so that the wall times below are of the runs alone
    simulate(BASE.replace(duration_s=2.0, warmup_s=1.0), 10, args.seed)
    lines = [HEADER]
    gaps: dict[str, list[float]] = {}
    for case in todo:
        ns3 = runs.get(f"{case.key},seed={args.seed}")
        ours = run_bufsize(case, args.seed)
        if ns3 is not None and ours is not None:
            gap = 100 * abs(ours["utilization"] - ns3["utilization"])
            gaps.setdefault(case.cc, []).append(gap)
        lines.append(fmt_row(case, ns3, ours))
        print(lines[-1], flush=True)
    summary = [
        f"- {cc}: mean |ΔU| = {np.mean(g):.1f} points, largest {max(g):.1f} ({len(g)} buffers)"
        for cc, g in gaps.items()
    ]
    command = "nice -n 19 .venv/bin/python studies/ns3_compare.py " + " ".join(
        shlex.quote(a) for a in sys.argv[1:]
    )
    text = "\n".join(
        [
            "# bufsize beside ns-3 3.44 (generated by studies/ns3_compare.py)",
            "",
            f"Command: `{command.strip()}`",
            "",
            f"Seed {args.seed}; {args.duration_s:g} s simulated, the first {args.warmup_s:g} s "
            "discarded. U = utilization, loss = drops / arrivals at the bottleneck, delay = mean "
            "wait before transmission; wall = seconds of wall time of the run (ns-3: "
            "Simulator::Run only; shared 2-core machine, ns-3 under nice 19).",
            "",
            *lines,
            "",
            "Mean absolute utilization gap per congestion control:",
            "",
            *summary,
            "",
        ]
    )
    args.output.parent.mkdir(exist_ok=True)
    if args.output.exists():  # keep the hand-written notes on the gaps
        old = args.output.read_text()
        if NOTES in old:
            text += "\n" + old[old.index(NOTES) :]
    args.output.write_text(text)
    print("\n".join(summary))


if __name__ == "__main__":
    main()

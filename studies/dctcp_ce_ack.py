"""DCTCP's receiver: how much the immediate ACK of a CE change moves bufsize's figures.

The question (issue 32): with three differences from Linux's ``tcp_dctcp.c`` taken out of
ns-3 3.44, ns-3 and bufsize agree at 1 Gbit/s, 40 flows, 200 µs, but residual gaps remain
(10 flows: bufsize marks 44-60 % of the packets where ns-3 marks 42-52 %, and its p99 queue
differs by up to 35 %; 1 ms and 40 flows: utilization up to 5.4 points apart). A likely
cause: the receiver. RFC 8257 §3.2 asks a DCTCP receiver whose CE state changes to
acknowledge the packets before it with the old state and then the new packet at once
("send an immediate ACK"); Linux does both (``dctcp_ece_ack_update`` in
``net/ipv4/tcp_dctcp.h`` acks a pending delayed ACK with the prior state and sets
``ICSK_ACK_NOW``), and so does bufsize; ns-3 3.44's ``TcpDctcp::CeState0to1`` /
``CeState1to0`` only send the ACK of the packets waiting before it. This study runs bufsize
both ways (the reference simulator's ``immediate_ce_ack``, which the compiled core does not
have) on the issue's links and reports how far apart the two receivers put each figure: the
part of the residual gaps that this one difference can explain. ns-3 itself is not run here
(its changed build is not part of the repository).

Run from the repository's root (about 20 s of CPU a run; nice it on a shared machine)::

    .venv/bin/python studies/dctcp_ce_ack.py

Writes ``results/dctcp_ce_ack.md`` (the notes below its table are kept).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from kernel_compare import write_keeping_notes

from validation.simulator import RunResult, Scenario
from validation.simulator.measures import to_result
from validation.simulator.reference.simulator import ReferenceSimulator

RESULTS = Path(__file__).resolve().parent / "results"
TABLE = RESULTS / "dctcp_ce_ack.md"
#: ns-3's packets (``ns3_compare.py``): 1000 B of payload, 54 B of headers on the wire.
PACKET_BYTES, HEADER_BYTES = 1000, 54
BUFFER_PACKETS = 250  # no drop: the marking alone holds the queue
DURATION_S, WARMUP_S = 1.5, 0.5


def scenario(flows: int, rtt_s: float, k_packets: int) -> Scenario:
    """The issue's link: 1 Gbit/s, DCTCP flows, CE marked from K packets waiting (K + 2 at
    bufsize's port, the packet in the device queue and the one in transmission, as
    ``ns3_compare.py`` hands it over)."""
    return Scenario(
        capacity_bps=1e9,
        flows=flows,
        rtt_s=rtt_s,
        rtt_jitter_s=0.0,
        congestion_control="dctcp",
        ecn=True,
        ecn_threshold_packets=k_packets + 2,
        packet_bytes=PACKET_BYTES,
        header_bytes=HEADER_BYTES,
        duration_s=DURATION_S,
        warmup_s=WARMUP_S,
    )


def run(sc: Scenario, seed: int, immediate: bool) -> RunResult:
    """The reference with the receiver's immediate ACK of a CE change on or off."""
    sim = ReferenceSimulator(sc, BUFFER_PACKETS, seed, False)
    sim.immediate_ce_ack = immediate
    return to_result(sim.p, sim.run(), 0.0, "reference")


def p99_queue(result: RunResult) -> int:
    """The 99th percentile of the time-weighted queue, packets."""
    return int(np.searchsorted(np.cumsum(result.queue_distribution), 0.99))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--flows", default="10,40")
    parser.add_argument("--rtts-us", default="200,1000")
    parser.add_argument("--k", default="20,40", help="marking thresholds, packets waiting")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    columns = (
        "flows", "RTT µs", "K", "U (immediate / ns-3's)", "marked % (immediate / ns-3's)",
        "mean queue pkts (immediate / ns-3's)", "p99 queue pkts (immediate / ns-3's)",
        "RTOs (immediate / ns-3's)",
    )  # fmt: skip
    rows = ["| " + " | ".join(columns) + " |", "| " + " | ".join("---" for _ in columns) + " |"]
    for flows in map(int, args.flows.split(",")):
        for rtt_us in map(int, args.rtts_us.split(",")):
            for k in map(int, args.k.split(",")):
                sc = scenario(flows, rtt_us * 1e-6, k)
                a, b = (run(sc, args.seed, immediate) for immediate in (True, False))
                mean_a = float(np.dot(np.arange(a.queue_distribution.size), a.queue_distribution))
                mean_b = float(np.dot(np.arange(b.queue_distribution.size), b.queue_distribution))
                rows.append(
                    f"| {flows} | {rtt_us} | {k} | {a.utilization:.3f} / {b.utilization:.3f} | "
                    f"{100 * a.mark_rate:.1f} / {100 * b.mark_rate:.1f} | "
                    f"{mean_a:.1f} / {mean_b:.1f} | {p99_queue(a)} / {p99_queue(b)} | "
                    f"{a.timeouts} / {b.timeouts} |"
                )
                print(rows[-1], flush=True)
    text = write_keeping_notes(
        TABLE,
        "# DCTCP's receiver: the immediate ACK of a CE change (studies/dctcp_ce_ack.py)",
        [
            f"bufsize's reference simulator, seed {args.seed}; 1 Gbit/s, {BUFFER_PACKETS} packets "
            f"of buffer, {PACKET_BYTES} + {HEADER_BYTES} B packets, equal RTTs; "
            f"{DURATION_S:g} s, the first {WARMUP_S:g} s discarded. 'immediate' = RFC 8257 "
            "§3.2 and Linux (bufsize's receiver); 'ns-3's' = the ACK of the waiting packets "
            "only. Queue: time-weighted, packets at the port (the one in transmission "
            "included).",
            "",
            *rows,
            "",
        ],
    )
    print(text)


if __name__ == "__main__":
    main()

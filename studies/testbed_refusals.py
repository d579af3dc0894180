"""Why the kernel testbed refused its own test's point on CI: the idle RTT probe, and stalls.

Before its flows start, a testbed run measures each flow's round trip on the idle path
(``Testbed.idle_rtts``: the SYN to SYN-ACK time the kernel samples, the delay line holding
the SYN-ACK for the flow's delay), and the sanity checks refuse the run when that is more
than 1 ms from the configured RTT (``validation.testbed.sanity.RTT_TOLERANCE_S``). One
handshake's time also holds how late the machine woke the forwarder and the hosts for it; CI
refused the testbed's own tests on it (their third and last tries: a 16 ms path probed at
17.76 ms, a 20 ms one at 21.82 ms). This study probes the same four paths as that test
(16-24 ms, 10 Mbit/s) round after round, with one handshake per port and with the least of
``PROBE_HANDSHAKES``, on the idle machine and with ``--load`` processes spinning at normal
priority beside it (the test suite's other worker), and counts the rounds whose worst port
is over the tolerance.

Second, the test's point itself (those four CUBIC flows into 8 packets, 2 s of warm-up, 3 s
measured), run after run at each load: how many runs the sanity checks refuse and why, the
drops they count as the machine's (after a stall of the forwarder, or ending a burst), and
the forwarder's largest lateness.

Run from the repository's root, as root::

    .venv/bin/python studies/testbed_refusals.py --rounds 12 --runs 10 --load 0,2

(about 4 minutes). Writes ``results/testbed_refusals.md`` with the command that made it; the
notes below its table are kept when it is rewritten.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
from pathlib import Path

from kernel_compare import write_keeping_notes

from validation.testbed import Flow, Measurement, Testbed, run_problems
from validation.testbed.endpoints import PROBE_HANDSHAKES
from validation.testbed.sanity import RTT_TOLERANCE_S

RESULT = Path(__file__).parent / "results" / "testbed_refusals.md"
#: The testbed test's four CUBIC paths: RTTs 16-24 ms on a 10 Mbit/s link, 8 packets.
FLOWS = [Flow("cubic", 0.02 * (0.8 + 0.4 * i / 3), 0.1 * i) for i in range(4)]
RATE_BPS = 10e6


def _spin() -> None:
    while True:
        pass


def rounds(count: int, handshakes: tuple[int, ...]) -> dict[int, list[float]]:
    """Per handshake count, each round's worst port: its probe less its configured RTT, s.
    The counts alternate within a round, so both see the same moments of the machine."""
    worst: dict[int, list[float]] = {h: [] for h in handshakes}
    with Testbed(RATE_BPS, 8) as bed:
        for _ in range(count):
            for h in handshakes:
                probed = bed.idle_rtts(FLOWS, h)
                worst[h].append(max(p - f.rtt_s for p, f in zip(probed, FLOWS, strict=True)))
    return worst


def points(count: int) -> list[Measurement]:
    """The test's point, ``count`` times on one testbed."""
    with Testbed(RATE_BPS, 8) as bed:
        return [bed.run(FLOWS, warmup_s=2.0, measure_s=3.0) for _ in range(count)]


def point_row(load: int, runs: list[Measurement]) -> str:
    refused = [run_problems(m) for m in runs]

    def why(word: str) -> int:
        return sum(any(word in p for p in problems) for problems in refused)

    machine = [m.forwarder_late["stall_drops"] / max(1, m.drops) for m in runs]
    bursts = [m.forwarder_late["burst_drops"] / max(1, m.drops) for m in runs]
    largest = sorted(1e3 * m.forwarder_late["max_s"] for m in runs)
    return (
        f"| {load} | {len(runs)} | {sum(bool(p) for p in refused)} | {why('stall')} "
        f"| {why('ended a run')} | {why('idle RTT')} | {why('late on average')} "
        f"| {100 * statistics.median(machine):.0f} % | {100 * statistics.median(bursts):.0f} % "
        f"| {statistics.median(largest):.1f} / {largest[-1]:.1f} |"
    )


def row(load: int, h: int, excess_s: list[float]) -> str:
    over = sum(e > RTT_TOLERANCE_S for e in excess_s)
    ms = sorted(1e3 * e for e in excess_s)
    return (
        f"| {load} | {h} | {len(ms)} | {over} | {ms[0]:+.2f} | {statistics.median(ms):+.2f} "
        f"| {ms[-1]:+.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12, help="rounds per load")
    parser.add_argument("--runs", type=int, default=10, help="runs of the test's point per load")
    parser.add_argument("--load", default="0,2", help="spinning processes beside it, each")
    args = parser.parse_args()
    handshakes = (1, PROBE_HANDSHAKES)
    body = [
        f"Four paths of 16-24 ms at {RATE_BPS / 1e6:g} Mbit/s; per round, the worst port's "
        f"probe less its configured RTT (tolerance {1e3 * RTT_TOLERANCE_S:g} ms).",
        "",
        "| spinning processes | handshakes per port (least kept) | rounds | rounds over "
        "tolerance | least, ms | median, ms | largest, ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    point_rows = [
        "",
        f"The test's point, {args.runs} runs at each load: runs refused, and for which reason "
        "(a run may have several); the median share of a run's drops counted as the "
        "machine's; the forwarder's largest lateness in a run (median / largest).",
        "",
        "| spinning processes | runs | refused | stall drops | burst drops | idle RTT "
        "| lateness | stall drops, share | burst drops, share | largest lateness, ms |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for load in (int(x) for x in args.load.split(",")):
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(load)]
        for spinner in spinners:
            spinner.start()
        try:
            worst = rounds(args.rounds, handshakes)
            point_rows.append(point_row(load, points(args.runs)))
        finally:
            for spinner in spinners:
                spinner.terminate()
                spinner.join()
        body += [row(load, h, worst[h]) for h in handshakes]
    body += point_rows
    print(write_keeping_notes(RESULT, "# The testbed's idle RTT probe", body))


if __name__ == "__main__":
    main()

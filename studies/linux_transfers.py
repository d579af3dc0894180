"""Linux's finite transfers on the kernel testbed beside bufsize's: whose start-up is Linux's?

``linux_slow_start.py`` found that Linux's slow-start rule (``tcp_slow_start``: cwnd + every
segment an ACK delivers) would end a transfer alone on an idle 100 Mbit/s, 100 ms link 1-3
round trips sooner than bufsize's (one packet per ACK, RFC 5681 eq. 2), with nothing of
Linux's to check it against. This study measures Linux's: one transfer at a time, alone on
the kernel testbed's idle link (``validation.testbed``, :meth:`Testbed.transfer`), at
100 Mbit/s, 100 ms, a drop-tail buffer of 1 BDP (833 packets), Reno and CUBIC (Linux's
defaults: initial window 10, CUBIC's HyStart on), 10 to 3,000 segments of 1,448 bytes and
each size up to 1,000 plus one (an odd last segment waits for a delayed-ACK timer where the
receiver acknowledges every second segment), three runs each; and the same transfers in bufsize's
simulator, as it is and with Linux's rule (``linux_slow_start.LinuxSlowStart``), each with
bufsize's receiver (an ACK for every second segment, 40 ms delayed-ACK timer) and with one
that acknowledges every segment
(``delayed_ack=1``: Linux's quick-ACK mode, kept up for the whole transfer).

The handshake: bufsize's flows send their first packet at their start, with no SYN, and a
flow's completion time runs from its first packet to the ACK of its last. Linux's is timed
alike: from the write that follows ``connect`` (the first segments leave with the handshake's
last ACK) to the ACK of the last byte at the sender (its send queue empty, ``TIOCOUTQ``);
the handshake (``connect``'s time, one RTT) is reported beside it, not added.

Besides the times, the sender's ``TCP_INFO`` at the end of each Linux transfer: ACKs received
per data segment sent (the receiver's ACK ratio), retransmissions, the drops at the port, and
ssthresh (still ``0x7fffffff`` if slow start ended with no loss and no HyStart exit).

Last, the same simulator variants on ``linux_slow_start.py``'s Poisson mix (simulated only).

Run from the repository's root, as root, with the other kernel studies' priority (the
testbed holds its PM QoS request while it is open)::

    sudo nice -n -5 .venv/bin/python studies/linux_transfers.py

(about 2 minutes; the simulator's side some seconds); ``--no-kernel`` reuses the stored runs
(``results/linux_transfers.json``) and redoes the simulator's side. Writes
``results/linux_transfers.md`` with the command that made it; the notes below its tables are
kept when it is rewritten.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

import numpy as np
from kernel_compare import write_keeping_notes
from linux_slow_start import (
    MIX_BINS,
    MIX_DURATION_S,
    MIX_LOAD,
    MIX_WARMUP_S,
    SHORT_CAPACITY_BPS,
    SHORT_RTT_S,
    _completions,
    _short_scenario,
    mix_group,
)

from validation.simulator import FlowGroup
from validation.testbed import Flow, Testbed, transfer_problems

RESULTS = Path(__file__).resolve().parent / "results"
TABLE = RESULTS / "linux_transfers.md"
RUNS = RESULTS / "linux_transfers.json"
#: The sizes asked (10-3,000) and those to 1,000 plus one: an odd last segment, which a
#: receiver acking every second one holds for its delayed-ACK timer.
SIZES = (10, 11, 30, 31, 100, 101, 300, 301, 1000, 1001, 3000)
CCS = ("reno", "cubic")
#: 1 BDP of 1,500-byte packets at 100 Mbit/s, 100 ms.
BUFFER_PACKETS = round(SHORT_CAPACITY_BPS * SHORT_RTT_S / (8.0 * 1500))
#: Tries per run: a transfer the sanity checks refuse (idle RTT off by over 1 ms) is run again.
TRIES = 3
#: Linux's ssthresh before any reduction (``TCP_INFINITE_SSTHRESH``).
INFINITE_SSTHRESH = 0x7FFFFFFF
#: Linux's initial window, packets (``TCP_INIT_CWND``), as the simulator's default.
INITIAL_WINDOW = 10
#: A variant "matches" Linux within this many RTTs: 0.05 RTT = 5 ms, five times the
#: testbed's 1 ms RTT tolerance and a twentieth of slow start's step (one round trip).
CLOSE_RTTS = 0.05
#: The simulator's variants: (label, Linux's slow-start rule, segments per ACK).
VARIANTS = (
    ("bufsize", False, 2),
    ("Linux's rule", True, 2),
    ("bufsize + ACK each", False, 1),
    ("Linux's rule + ACK each", True, 1),
)


def kernel_runs(runs: int) -> list[dict[str, Any]]:
    """``runs`` transfers of each size and congestion control on the testbed (root)."""
    found = []
    with Testbed(SHORT_CAPACITY_BPS, BUFFER_PACKETS) as bed:
        for cc in CCS:
            for size in SIZES:
                for run in range(runs):
                    for _ in range(TRIES):
                        done = bed.transfer(Flow(cc, SHORT_RTT_S), size)
                        problems = transfer_problems(done)
                        if not problems:
                            break
                    entry = {**done.as_dict(), "run": run, "problems": problems}
                    entry["acks_per_segment"] = done.acks_per_segment
                    found.append(entry)
                    print(
                        f"{cc} {size} run {run}: {done.completion_s:.4f} s, handshake "
                        f"{done.handshake_s:.4f} s, ACKs/segment {done.acks_per_segment:.3f}, "
                        f"drops {done.drops}, {problems or 'ok'}",
                        flush=True,
                    )
    return found


def simulated(cc: str, size: int, linux: bool, delayed_ack: int) -> float:
    """One transfer's completion time in the reference simulator (seed 1; nothing random)."""
    group = FlowGroup(
        name="one",
        flows=1,
        traffic="closed_loop",
        congestion_control=cc,  # type: ignore[arg-type]
        flow_size_distribution="fixed",
        flow_size_packets=float(size),
        rtt_s=SHORT_RTT_S,
        rtt_jitter_s=0.0,
        start_spread_s=0.0,
        delayed_ack=delayed_ack,
    )
    done, _ = _completions(_short_scenario(group, 10.0, 0.0), BUFFER_PACKETS, 1, linux)
    return float(done[0, 1])


def rows(found: list[dict[str, Any]]) -> list[str]:
    """One row per congestion control and size: Linux's runs and the simulator's variants."""
    labels = [label for label, _, _ in VARIANTS]
    out = [
        "| cc | size (pkts) | Linux RTTs: median (min-max) | handshake RTTs | ACKs per segment "
        "| cwnd - IW at end / ACKs received | retrans / drops | HyStart exits | "
        + " | ".join(f"{v} RTTs" for v in labels)
        + f" | within {CLOSE_RTTS:g} RTT of Linux's median |",
        "|" + " --- |" * (9 + len(labels)),
    ]
    for cc in CCS:
        for size in SIZES:
            mine = [
                r for r in found
                if r["flow"]["congestion_control"] == cc and r["packets"] == size
                and not r["problems"]
            ]  # fmt: skip
            times = np.array([r["completion_s"] for r in mine]) / SHORT_RTT_S
            sims = [simulated(cc, size, linux, ack) / SHORT_RTT_S for _, linux, ack in VARIANTS]
            cells = [cc, str(size)]
            if times.size:
                median = float(np.median(times))
                cells.append(f"{median:.2f} ({times.min():.2f}-{times.max():.2f}), n={times.size}")
                handshakes = np.array([r["handshake_s"] for r in mine]) / SHORT_RTT_S
                cells.append(f"{handshakes.mean():.3f}")
                cells.append(f"{np.mean([r['acks_per_segment'] for r in mine]):.3f}")
                grown = np.mean([r["tcp_info"]["snd_cwnd"] - INITIAL_WINDOW for r in mine])
                acks = np.mean([r["tcp_info"]["segs_in"] - 1 for r in mine])
                cells.append(f"{grown:.0f} / {acks:.0f}")
                retrans = sum(int(r["tcp_info"]["total_retrans"]) for r in mine)
                cells.append(f"{retrans} / {sum(int(r['drops']) for r in mine)}")
                hystart = sum(
                    1 for r in mine
                    if r["tcp_info"]["snd_ssthresh"] < INFINITE_SSTHRESH
                    and r["tcp_info"]["total_retrans"] == 0
                )  # fmt: skip
                cells.append(f"{hystart} of {len(mine)}")
            else:
                median = float("nan")
                cells += ["no run passed the checks", "", "", "", "", ""]
            cells += [f"{s:.2f}" for s in sims]
            close = [v for v, s in zip(labels, sims, strict=True) if abs(s - median) <= CLOSE_RTTS]
            cells.append("; ".join(close) or "none")
            out.append("| " + " | ".join(cells) + " |")
            print(out[-1], flush=True)
    return out


def mix_rows() -> list[str]:
    """linux_slow_start's Poisson mix (simulated only) in each variant: completion times by
    size, loss and delay. No Linux measurement: what the choice between the variants moves."""
    bins = [f"{lo}-{hi}" if hi < 10**9 else f">{lo - 1}" for lo, hi in MIX_BINS]
    out = [
        "| variant | "
        + " | ".join(f"{b} pkts: median (p90) s" for b in bins)
        + " | loss % | mean queueing delay ms | utilization |",
        "|" + " --- |" * (4 + len(bins)),
    ]
    for label, linux, delayed_ack in VARIANTS:
        scenario = _short_scenario(mix_group(delayed_ack), MIX_DURATION_S, MIX_WARMUP_S)
        done, result = _completions(scenario, BUFFER_PACKETS, 1, linux)
        cells = [label]
        for lo, hi in MIX_BINS:
            sel = done[(done[:, 0] >= lo) & (done[:, 0] <= hi), 1]
            cells.append(f"{np.median(sel):.3f} ({np.quantile(sel, 0.9):.3f})")
        cells += [
            f"{100 * result.loss_rate:.3f}",
            f"{1e3 * result.queue_delay_mean_s:.1f}",
            f"{result.utilization:.3f}",
        ]
        out.append("| " + " | ".join(cells) + " |")
        print(out[-1], flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="transfers per size and cc")
    parser.add_argument(
        "--no-kernel", action="store_true", help="reuse the stored kernel runs (no root needed)"
    )
    parser.add_argument("--output", type=Path, default=TABLE, help="markdown file to write")
    args = parser.parse_args()
    if args.no_kernel:
        found = json.loads(RUNS.read_text())["runs"]
    else:
        found = kernel_runs(args.runs)
        command = "sudo nice -n -5 .venv/bin/python studies/linux_transfers.py " + " ".join(
            shlex.quote(a) for a in sys.argv[1:]
        )
        RUNS.write_text(json.dumps({"command": command.strip(), "runs": found}, indent=1) + "\n")
    kernel = {r["kernel"] for r in found}
    refused = sum(1 for r in found if r["problems"])
    body = [
        f"Kernel runs: `{json.loads(RUNS.read_text())['command']}` (stored in "
        f"`results/{RUNS.name}`).",
        "",
        f"One transfer at a time alone on the idle link: {SHORT_CAPACITY_BPS / 1e6:g} Mbit/s, "
        f"{1e3 * SHORT_RTT_S:g} ms, B = {BUFFER_PACKETS} packets (1 BDP), segments of 1,448 "
        f"bytes. Linux {', '.join(sorted(kernel))} through the namespace testbed; "
        f"{len(found) - refused} of {len(found)} runs passed the checks ({refused} refused "
        f"after {TRIES} tries). Completion time in round trips ({1e3 * SHORT_RTT_S:g} ms), from "
        "the first data packet to the ACK of the last, on both sides; Linux's handshake "
        "(`connect`) beside it, not added. ACKs per segment: the ACKs Linux's sender received "
        "per data segment it sent; cwnd - IW at end: the window's growth over the transfer "
        "(Linux's rule grows it by the segments acknowledged, one packet per ACK by the ACKs). "
        "HyStart exits: runs that ended with ssthresh set and no "
        "retransmission. The simulator's variants (reference simulator, one run each, nothing "
        "random): bufsize as it is (one packet per ACK in slow start, an ACK per 2 segments), "
        "with Linux's rule (`tcp_slow_start`), and both with an ACK for every segment.",
        "",
        *rows(found),
        "",
        f"The same variants on `linux_slow_start.py`'s Poisson mix (simulated only, seed 1: "
        f"Pareto sizes of mean 100 packets, load {MIX_LOAD:g}, RTTs 80-120 ms, B = "
        f"{BUFFER_PACKETS} packets, {MIX_DURATION_S:g} s with {MIX_WARMUP_S:g} s discarded):",
        "",
        *mix_rows(),
        "",
    ]
    heading = (
        "# Linux's finite transfers against bufsize's (generated by studies/linux_transfers.py)"
    )
    write_keeping_notes(args.output, heading, body)


if __name__ == "__main__":
    main()

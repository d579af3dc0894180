"""Where one Linux flow loses at a 4-packet buffer: the kernel's own trace of the testbed's runs.

The question (issue 32): at 0.05 BDP (4 packets) one Reno or CUBIC flow carries 0.55-0.60 of
a 20 Mbit/s, 50 ms link in the kernel testbed and 0.77 / 0.88 in bufsize
(``kernel_compare.md``), with no timeouts and no loss probes on either side
(``kernel_bursts.md``). This study runs the same points with the kernel's tracepoints on (a
``tracefs`` instance of its own, removed at the end) and reads, after the warm-up:

- each loss episode's start (``tcp:tcp_cong_state_set`` to Recovery) and the sender's window
  then (``tcp:tcp_probe``, the last ACK before it): a flow whose window exceeds BDP + B
  loses by overflow; one that loses with its window well below the BDP loses to a burst;
- the trains of data packets that reach the port's TUN device less than ``TRAIN_GAP_S``
  apart (``net:net_dev_start_xmit``, kernel time: before the forwarder reads them), and for
  each episode the longest train one RTT before it (when the lost packet came);
- what released each train of ``LONG_TRAIN`` packets or more: the ACK the sender acted on
  just before (``tcp:tcp_probe``): a *stretch* ACK (three segments or more newly acknowledged;
  the receiver acknowledges every second segment), ACKs *bunched* (two or more acted on in
  ``TRAIN_GAP_S``), or an ACK *held* at the sender (acted on more than ``HELD_S`` after the
  delay line wrote it: ``net:netif_receive_skb`` on the line's device, matched by its skb).

Needs root (the testbed and ``tracefs``). Run from the repository's root::

    sudo nice -n 10 .venv/bin/python studies/kernel_loss_trace.py [--families reno-1,cubic-1]
        [--buffers 4,8] [--seeds 1]

Appends one line a run to ``results/kernel_loss_trace.json`` and rewrites
``results/kernel_loss_trace.md`` from all the stored runs (the notes below its table kept).
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import itertools
import json
import os
import re
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kernel_compare import FAMILIES, MTU_BYTES, Family, kernel_flows, write_keeping_notes

from validation.testbed import Testbed, run_problems
from validation.testbed.bed import SINK_PORT

RESULTS = Path(__file__).resolve().parent / "results"
RUNS = RESULTS / "kernel_loss_trace.json"
TABLE = RESULTS / "kernel_loss_trace.md"
DURATION_S, WARMUP_S = 20.0, 5.0
#: Packets less than this apart make one train (a sender's burst at the veth's speed), s.
TRAIN_GAP_S = 100e-6
#: A train this long or longer does not come from delayed ACKs (two segments an ACK, three
#: when the window grows by one) and can overflow a 4-packet buffer on its own.
LONG_TRAIN = 4
#: An ACK acted on this long after the delay line wrote it was held at the sender, s.
HELD_S = 0.5e-3
#: A loss episode starts about one RTT after the lost packet reached the port: the window in
#: which its train is looked for, s before the episode (50 ms RTT, detection up to 25 ms).
EPISODE_LAG_S = (0.045, 0.075)
_EVENTS = (
    "tcp/tcp_probe",
    "tcp/tcp_cong_state_set",
    "net/net_dev_start_xmit",
    "net/netif_receive_skb",
)
_LINE = re.compile(r"\s(\d+\.\d+): (\w+): (.*)$")
_TCP_CA_RECOVERY = 3


def _tracefs() -> tuple[Path, bool]:
    """The mounted tracefs, mounting it on a temporary directory if none is (then True)."""
    for line in Path("/proc/mounts").read_text().splitlines():
        kind, mount_point = line.split()[2], line.split()[1]
        if kind == "tracefs":
            return Path(mount_point), False
    mount_point = Path(tempfile.mkdtemp(prefix="bzk-tracefs-"))
    subprocess.run(["mount", "-t", "tracefs", "nodev", str(mount_point)], check=True)
    return mount_point, True


@contextlib.contextmanager
def tracing(devices: dict[str, str]) -> Iterator[Path]:
    """A tracefs instance of our own with the events above, filtered to the testbed's flows
    and devices; disabled and removed (and tracefs unmounted if we mounted it) on exit."""
    root, mounted = _tracefs()
    instance = root / "instances" / f"bzk-{uuid.uuid4().hex[:6]}"
    instance.mkdir()
    flows = f"sport >= 20000 && sport < 60000 && dport == {SINK_PORT}"
    sink = f"sport == {SINK_PORT} && dport >= 20000 && dport < 60000"
    filters = {
        "tcp/tcp_probe": f"({flows}) || ({sink})",
        "tcp/tcp_cong_state_set": flows,
        "net/net_dev_start_xmit": (
            f'(name == "{devices["port"]}" && len > 1000) || name == "{devices["line"]}"'
        ),
        "net/netif_receive_skb": f'name == "{devices["line"]}"',
    }
    try:
        (instance / "buffer_size_kb").write_text("30000")
        (instance / "trace_clock").write_text("mono")
        for event, rule in filters.items():
            (instance / "events" / event / "filter").write_text(rule)
            (instance / "events" / event / "enable").write_text("1")
        yield instance
    finally:
        for event in _EVENTS:
            with contextlib.suppress(OSError):
                (instance / "events" / event / "enable").write_text("0")
        instance.rmdir()
        if mounted:
            subprocess.run(["umount", str(root)], check=False)
            root.rmdir()


def _field(text: str, name: str) -> str:
    found = re.search(rf"\b{name}=(\S+)", text)
    return found.group(1) if found else ""


def _trains(times: list[float]) -> list[tuple[float, float, int]]:
    """(first, last, length) of the runs of ``times`` less than TRAIN_GAP_S apart."""
    trains: list[tuple[float, float, int]] = []
    for t in times:
        if trains and t - trains[-1][1] < TRAIN_GAP_S:
            trains[-1] = (trains[-1][0], t, trains[-1][2] + 1)
        else:
            trains.append((t, t, 1))
    return trains


def summarize(
    trace: str, warmup_s: float, bdp_packets: float, buffer_packets: int, port: str, rtt_s: float
) -> dict[str, Any]:
    """The figures of one run's trace (see the module docstring); ``rtt_s``: the one flow's
    delay in the line."""
    acks: list[tuple[float, int, int, float]] = []  # time, snd_una, cwnd, line's write (or -1)
    written: dict[str, float] = {}  # the line's writes, by skb (the last one)
    episodes: list[float] = []
    into_port: list[float] = []
    segments: list[float] = []  # the receiver's TCP takes a data segment
    acks_sent: list[float] = []  # an ACK enters the delay line
    for line in trace.splitlines():
        found = _LINE.search(line)
        if not found:
            continue
        t, event, text = float(found.group(1)), found.group(2), found.group(3)
        if event == "tcp_probe" and _field(text, "src").endswith(f":{SINK_PORT}"):
            if int(_field(text, "data_len")):
                segments.append(t)
        elif event == "tcp_probe":
            line_s = written.pop(_field(text, "skbaddr"), None)
            una, cwnd = int(_field(text, "snd_una"), 16), int(_field(text, "snd_cwnd"))
            acks.append((t, una, cwnd, -1.0 if line_s is None else line_s))
        elif event == "netif_receive_skb":
            written[_field(text, "skbaddr")] = t
        elif event == "net_dev_start_xmit" and _field(text, "dev") == port:
            into_port.append(t)
        elif event == "net_dev_start_xmit":
            acks_sent.append(t)
        elif event == "tcp_cong_state_set" and int(_field(text, "cong_state")) == _TCP_CA_RECOVERY:
            episodes.append(t)
    start = acks[0][0] + warmup_s
    ack_times = [a[0] for a in acks]
    trains = [train for train in _trains(into_port) if train[0] >= start]
    # What let each long train go: the ACKs the sender acted on from just before its first
    # packet to its last (each ACK's segments go out at once, so several ACKs = bunched).
    # ACKs bunched before the sender were sent together by the receiver, or apart and
    # bunched by the forwarder (read or written late): the receiver's last ``n`` ACKs into
    # the line before the last one's write less its delay (the line keeps their order).
    released = {
        "held at the sender": 0,
        "bunched by the forwarder": 0,
        "sent together by the receiver": 0,
        "one stretch ACK": 0,
    }
    for first, last, n in trains:
        if n < LONG_TRAIN:
            continue
        lo = bisect.bisect_right(ack_times, first - TRAIN_GAP_S)
        these = range(max(lo, 1), bisect.bisect_right(ack_times, last))
        written_s = [acks[i][3] for i in these if acks[i][3] >= 0]
        if len(these) >= 2 and any(acks[i][0] - acks[i][3] > HELD_S for i in these):
            released["held at the sender"] += 1
        elif len(these) >= 2 and written_s:
            sent = acks_sent[: bisect.bisect_right(acks_sent, max(written_s) - rtt_s)]
            together = len(sent) >= len(these) and (
                sent[-1] - sent[-len(these)] < TRAIN_GAP_S * len(these)
            )
            released[
                "sent together by the receiver" if together else "bunched by the forwarder"
            ] += 1
        elif len(these) == 1 and (acks[these[0] + 1][1] - acks[these[0]][1]) % 2**32 >= 3 * (
            MTU_BYTES - 52
        ):
            released["one stretch ACK"] += 1
    rows = []
    for e in (e for e in episodes if e >= start):
        i = bisect.bisect_left(ack_times, e) - 1
        lo_s, hi_s = e - EPISODE_LAG_S[1], e - EPISODE_LAG_S[0]
        longest = max((n for first, _, n in trains if lo_s <= first <= hi_s), default=0)
        rows.append({"t_s": round(e - acks[0][0], 3), "cwnd": acks[i][2], "train": longest})
    # The receiver's stretch ACKs: 3 segments or more taken since its previous ACK, taken
    # together (the segments reached its TCP in one lump) or apart (it held its ACK).
    stretch = {"together": 0, "apart": 0}
    for previous, sent in itertools.pairwise(acks_sent):
        taken = segments[
            bisect.bisect_right(segments, previous) : bisect.bisect_right(segments, sent)
        ]
        if sent >= start and len(taken) >= 3:
            lumped = taken[-1] - taken[0] < TRAIN_GAP_S * len(taken)
            stretch["together" if lumped else "apart"] += 1
    holds = sorted(a[0] - a[3] for a in acks if a[0] >= start and a[3] >= 0) or [0.0]
    return {
        "episodes": rows,
        "loss_window_packets": round(bdp_packets + buffer_packets, 1),
        "trains": len(trains),
        "long_trains": sum(n >= LONG_TRAIN for _, _, n in trains),
        "long_trains_after": released,
        "acks_held": sum(h > HELD_S for h in holds),
        "receiver_acks": sum(t >= start for t in acks_sent),
        "receiver_stretch_acks": stretch,
        "ack_hold_p99_ms": round(1e3 * holds[int(0.99 * (len(holds) - 1))], 3),
        "ack_hold_max_ms": round(1e3 * holds[-1], 3),
    }


def run(family: Family, buffer_packets: int, seed: int) -> dict[str, Any]:
    """One traced testbed run of the point."""
    scenario = family.scenario(DURATION_S, WARMUP_S)
    flows = kernel_flows(family, scenario, buffer_packets, seed)
    with Testbed(family.capacity_bps, buffer_packets, MTU_BYTES) as bed:
        with tracing(bed.devices) as instance:
            (instance / "trace").write_text("")
            measured = bed.run(flows, warmup_s=WARMUP_S, measure_s=DURATION_S - WARMUP_S)
            for event in _EVENTS:
                (instance / "events" / event / "enable").write_text("0")
            trace = (instance / "trace").read_text()
    bdp = family.capacity_bps * family.rtt_s / (8 * MTU_BYTES)
    record = summarize(trace, WARMUP_S, bdp, buffer_packets, bed.devices["port"], flows[0].rtt_s)
    record.update(
        family=family.name,
        buffer_packets=buffer_packets,
        seed=seed,
        utilization=round(measured.utilization, 3),
        drops=measured.drops,
        tcp_counters=measured.tcp_counters,
        problems=run_problems(measured),
        load_1min=round(os.getloadavg()[0], 1),
        kernel=measured.kernel,
    )
    return record


def _row(r: dict[str, Any]) -> str:
    episodes = r["episodes"]
    cwnds = [e["cwnd"] for e in episodes]
    after_train = sum(e["train"] >= LONG_TRAIN for e in episodes)
    after = r["long_trains_after"]
    refused = " (refused: " + "; ".join(r["problems"]) + ")" if r["problems"] else ""
    return (
        f"| {r['family']} | {r['buffer_packets']} | {r['seed']} | {r['utilization']:.3f}{refused}"
        f" | {len(episodes)} | {min(cwnds, default=0)}-{max(cwnds, default=0)}"
        f" ({r['loss_window_packets']:g}) | {after_train} | {r['long_trains']} | "
        f"{' / '.join(str(v) for v in after.values())} | {r['acks_held']} | "
        f"{r['receiver_stretch_acks']['together']} / {r['receiver_stretch_acks']['apart']} "
        f"of {r['receiver_acks']} | "
        f"{r['ack_hold_p99_ms']:.2f} / {r['ack_hold_max_ms']:.2f} | {r['load_1min']:g} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="reno-1,cubic-1")
    parser.add_argument("--buffers", default="4,8", help="buffer sizes, packets")
    parser.add_argument("--seeds", default="1", help="seeds, comma-separated")
    args = parser.parse_args()
    runs = json.loads(RUNS.read_text()) if RUNS.exists() else []
    for family in (f for f in FAMILIES if f.name in args.families.split(",")):
        for buffer_packets in (int(b) for b in args.buffers.split(",")):
            for seed in (int(s) for s in args.seeds.split(",")):
                runs.append(run(family, buffer_packets, seed))
                RESULTS.mkdir(exist_ok=True)
                RUNS.write_text(json.dumps(runs, indent=1) + "\n")
                print(_row(runs[-1]), flush=True)
    columns = (
        "family", "B", "seed", "U", "loss episodes", "window at each (BDP + B)",
        f"episodes after a train of {LONG_TRAIN}+", f"trains of {LONG_TRAIN}+",
        "of which let go by ACKs held at the sender / bunched by the forwarder / "
        "sent together by the receiver / one stretch ACK",
        "ACKs held > 0.5 ms at the sender",
        "receiver's stretch ACKs: segments taken together / apart",
        "ACK hold p99 / max, ms", "load",
    )  # fmt: skip
    text = write_keeping_notes(
        TABLE,
        "# Where one Linux flow loses at small buffers (studies/kernel_loss_trace.py)",
        [
            f"{DURATION_S:g} s a run, the first {WARMUP_S:g} s discarded; every figure after "
            f"the warm-up, from the kernel's tracepoints. A train: data packets less than "
            f"{1e6 * TRAIN_GAP_S:.0f} µs apart into the port. An episode 'after a train': the "
            f"longest train {1e3 * EPISODE_LAG_S[0]:.0f}-{1e3 * EPISODE_LAG_S[1]:.0f} ms "
            f"before the episode began had {LONG_TRAIN} packets or more.",
            "",
            "| " + " | ".join(columns) + " |",
            "| " + " | ".join("---" for _ in columns) + " |",
            *(_row(r) for r in runs),
            "",
        ],
    )
    print(text)


if __name__ == "__main__":
    main()

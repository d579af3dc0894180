"""The testbed router's user-space half: the bottleneck port and the ACKs' delay line.

The router sends what comes from the senders into one TUN device (the *port*) and what comes
back from the receiver into another (the *line*), by policy routes on its two veths; this
process reads both and writes every packet back, unchanged, into the device it came from,
after which the router forwards it on. One real-time event loop times both:

- **Port**: a link of ``RATE_BPS`` with a drop-tail buffer of ``BUFFER`` packets, counted as
  the simulator counts them (the packet being sent included). A packet arriving when
  ``BUFFER`` packets are waiting or being sent is dropped; otherwise it starts its
  transmission when the one before it ends and is written out when its own ends
  (``8 · bytes / RATE_BPS`` later; bytes = the IP packet, the simulator's wire size).
- **Line**: each packet back from the receiver is held for its flow's delay (named by its TCP
  destination port, the sender's source port; other packets get the default delay) and then
  written out. One delay per flow: the line never reorders a flow, and it never drops.

Why not ``htb`` and ``netem``: this kernel has no ``netem``; and ``htb``'s timer runs in a
softirq that a loaded machine defers: with a load of 16 on 2 cores, a 20 Mbit/s ``htb`` with
8 packets of ``pfifo`` held packets up to 152 ms (p99 4.5-66 ms, where 8 packets take
4.8 ms) and paused up to 45 ms with packets waiting (captures on both router ports). This
loop runs at a real-time priority (root may), so its timing holds on a busy machine; it
measures how late it wrote each packet, and the testbed refuses runs where that was more than
the RTT tolerance on average (:mod:`validation.testbed.sanity`).

Measures (between SIGUSR1 and SIGUSR2, which the testbed sends after the warm-up and at the
end): arrivals, drops, packets and bytes sent, each sent packet's wait before its
transmission (mean and 99th percentile from a 10 µs histogram), the bytes sent per source
port, the lateness of the writes, and the *stalls*: writes more than ``STALL_S`` late, after
which the packets due meanwhile leave together (ACKs bunched into a sender's burst), and the
drops that follow a stall within ``STALL_DROP_WINDOW_S``, which are the machine's, not
TCP's, and the *burst drops* (``BURST_PACKETS``), also the machine's. How the arrivals
come: the backlog each data packet finds at the port (0 .. BUFFER,
BUFFER meaning dropped), the lengths of the *trains* of data packets that reach the port less
than ``TRAIN_GAP_S`` apart (what the senders send back to back), and of the ACK trains the
line writes out that close together. On SIGTERM or SIGINT it writes them to ``STATS_PATH``
as JSON and exits.

Run inside the router's namespace::

    python -m validation.testbed.forwarder PORT_DEV LINE_DEV RATE_BPS BUFFER DEFAULT_S \\
        STATS_PATH [SOURCE_PORT=DELAY_S ...]
"""

from __future__ import annotations

import collections
import fcntl
import heapq
import json
import os
import select
import signal
import struct
import sys
import time
from types import FrameType
from typing import Any

_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
_TCP = 6
#: A write later than this is a stall of the forwarder (the machine took the CPU away), s.
STALL_S = 0.5e-3
#: A drop this soon after a stall is counted as the stall's (the packets it bunched), s.
STALL_DROP_WINDOW_S = 10e-3
#: Packets closer together than this belong to one train (under one 1500-byte packet's
#: transmission at 100 Mbit/s, 120 µs), s.
TRAIN_GAP_S = 50e-6
#: A drop that ends a run of this many packets of one flow (each less than TRAIN_GAP_S after
#: the one before) is a *burst drop*: a flow's ACKs (two segments each, three when its window
#: grows) release at most three packets at once in congestion avoidance, so a longer run was
#: let go by ACKs that the machine bunched (measured with the kernel's tracepoints,
#: ``studies/kernel_loss_trace.py``: the forwarder reading or writing them late, the
#: receiver sending them together, the sender's socket holding them).
BURST_PACKETS = 4
#: Histogram bins of the waits and of the lateness, s, and their number.
_BIN_S = 10e-6
_BINS = 100_000


def open_tun(device: str) -> int:
    """A non-blocking file descriptor on the existing TUN ``device`` (no packet header)."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", device.encode(), _IFF_TUN | _IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def tcp_ports(packet: bytes) -> tuple[int, int] | None:
    """(source, destination) TCP ports of an IPv4 packet, or None for anything else."""
    if len(packet) < 24 or packet[0] >> 4 != 4 or packet[9] != _TCP:
        return None
    header_bytes = 4 * (packet[0] & 0x0F)
    if len(packet) < header_bytes + 4:
        return None
    ports: tuple[int, int] = struct.unpack_from("!HH", packet, header_bytes)
    return ports


class Histogram:
    """Counts of values in _BIN_S bins (the last bin takes the rest): mean and quantiles."""

    def __init__(self) -> None:
        self.counts = [0] * _BINS
        self.n = 0
        self.total = 0.0
        self.largest = 0.0

    def add(self, value: float) -> None:
        self.counts[min(int(value / _BIN_S), _BINS - 1)] += 1
        self.n += 1
        self.total += value
        self.largest = max(self.largest, value)

    def quantile(self, q: float) -> float:
        """The upper edge of the bin holding the q-quantile (0 with no values)."""
        running = 0
        for index, count in enumerate(self.counts):
            running += count
            if running >= q * self.n and self.n:
                return (index + 1) * _BIN_S
        return 0.0

    def summary(self) -> dict[str, float]:
        return {
            "n": self.n,
            "mean_s": self.total / self.n if self.n else 0.0,
            "p99_s": self.quantile(0.99),
            "max_s": self.largest,
        }


class Window:
    """What is counted between the two signals."""

    def __init__(self, now: float) -> None:
        self.start_s = now
        self.end_s = now
        self.arrivals = 0
        self.drops = 0
        self.sent = 0
        self.sent_bytes = 0
        self.wait = Histogram()
        self.late = Histogram()
        self.bytes_by_port: dict[int, int] = collections.Counter()
        self.stalls = 0
        self.stall_drops = 0
        self.last_stall_s = -1.0
        self.burst_drops = 0
        self.backlog_found: collections.Counter[int] = collections.Counter()
        self.trains: collections.Counter[int] = collections.Counter()
        self.ack_trains: collections.Counter[int] = collections.Counter()

    def summary(self) -> dict[str, Any]:
        return {
            "start_s": self.start_s,
            "end_s": self.end_s,
            "arrivals": self.arrivals,
            "drops": self.drops,
            "sent": self.sent,
            "sent_bytes": self.sent_bytes,
            "wait": self.wait.summary(),
            "late": {
                **self.late.summary(),
                "stalls": self.stalls,
                "stall_drops": self.stall_drops,
                "burst_drops": self.burst_drops,
            },
            "bytes_by_port": {str(k): v for k, v in self.bytes_by_port.items()},
            "backlog_found": {str(k): v for k, v in sorted(self.backlog_found.items())},
            "trains": {str(k): v for k, v in sorted(self.trains.items())},
            "ack_trains": {str(k): v for k, v in sorted(self.ack_trains.items())},
        }


class Trains:
    """Lengths of the runs of events less than ``TRAIN_GAP_S`` apart, into a counter."""

    def __init__(self) -> None:
        self.last_s = -1.0
        self.length = 0

    def add(self, now: float, into: collections.Counter[int]) -> None:
        if self.length and now - self.last_s >= TRAIN_GAP_S:
            into[self.length] += 1
            self.length = 0
        self.length += 1
        self.last_s = now

    def close(self, into: collections.Counter[int]) -> None:
        """Count the train still open."""
        if self.length:
            into[self.length] += 1
            self.length = 0


class _Stop(Exception):
    pass


def run(
    devices: tuple[str, str],
    rate_bps: float,
    buffer_packets: int,
    default_s: float,
    delays_s: dict[int, float],
    stats_path: str,
) -> None:
    """Forward until SIGTERM/SIGINT; then write the window's measures to ``stats_path``."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (PermissionError, OSError):
        pass  # the lateness measured tells whether the timing held
    clock = time.monotonic
    # Made here, not when the window begins (nothing is counted into it before): a Window
    # made in the handler took 8-10 ms on this project's VM (its histograms' 1.6 MB of fresh
    # pages), during which the packets due waited, at the start of every measured window.
    window = Window(clock())
    counting = False
    trains, ack_trains = Trains(), Trains()

    def begin(signum: int, _frame: FrameType | None) -> None:
        nonlocal counting
        window.start_s = clock()
        counting = True

    def finish(signum: int, _frame: FrameType | None) -> None:
        nonlocal counting
        window.end_s = clock()
        counting = False
        trains.close(window.trains)  # the trains still open count too
        ack_trains.close(window.ack_trains)

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise _Stop

    signal.signal(signal.SIGUSR1, begin)
    signal.signal(signal.SIGUSR2, finish)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    port_fd, line_fd = open_tun(devices[0]), open_tun(devices[1])
    # (due time, sequence, fd, packet, wait before transmission or -1 for the line, TCP source
    # port or -1): each packet's ports are read once, when it arrives
    held: list[tuple[float, int, int, bytes, float, int]] = []
    in_port: collections.deque[float] = collections.deque()  # ends of accepted transmissions
    last_end = 0.0
    sequence = 0
    flow_runs: dict[int, tuple[float, int]] = {}  # source port: (last arrival, run length)
    try:
        while True:
            now = clock()
            while held and held[0][0] <= now:
                due, _, fd, packet, wait_s, source = heapq.heappop(held)
                os.write(fd, packet)
                if counting:
                    if wait_s < 0.0:
                        ack_trains.add(now, window.ack_trains)
                    window.late.add(now - due)
                    if now - due > STALL_S:
                        if now - window.last_stall_s > STALL_DROP_WINDOW_S:
                            window.stalls += 1
                        window.last_stall_s = now
                    if wait_s >= 0.0:
                        window.sent += 1
                        window.sent_bytes += len(packet)
                        window.wait.add(wait_s)
                        if source >= 0:
                            window.bytes_by_port[source] += len(packet)
                now = clock()
            timeout_s = max(0.0, held[0][0] - now) if held else 0.5
            readable, _, _ = select.select([port_fd, line_fd], [], [], timeout_s)
            arrival = clock()
            if line_fd in readable:
                while True:
                    try:
                        packet = os.read(line_fd, 65536)
                    except BlockingIOError:
                        break
                    ports = tcp_ports(packet)
                    delay_s = delays_s.get(ports[1], default_s) if ports else default_s
                    heapq.heappush(held, (arrival + delay_s, sequence, line_fd, packet, -1.0, -1))
                    sequence += 1
            if port_fd in readable:
                while True:
                    try:
                        packet = os.read(port_fd, 65536)
                    except BlockingIOError:
                        break
                    while in_port and in_port[0] <= arrival:
                        in_port.popleft()
                    counts = counting  # one answer for this packet, whatever signal comes
                    ports = tcp_ports(packet)
                    source = ports[0] if ports else -1
                    last_s, run_length = flow_runs.get(source, (-1.0, 0))
                    run_length = run_length + 1 if arrival - last_s < TRAIN_GAP_S else 1
                    flow_runs[source] = (arrival, run_length)
                    if counts:
                        window.arrivals += 1
                        window.backlog_found[min(len(in_port), buffer_packets)] += 1
                        trains.add(arrival, window.trains)
                    if len(in_port) >= buffer_packets:
                        if counts:
                            window.drops += 1
                            if arrival - window.last_stall_s <= STALL_DROP_WINDOW_S:
                                window.stall_drops += 1
                            if run_length >= BURST_PACKETS:
                                window.burst_drops += 1
                        continue
                    start = max(arrival, last_end)
                    last_end = start + 8.0 * len(packet) / rate_bps
                    in_port.append(last_end)
                    entry = (last_end, sequence, port_fd, packet, start - arrival, source)
                    heapq.heappush(held, entry)
                    sequence += 1
    except _Stop:
        pass
    finally:
        summary = window.summary()
        summary["held_at_exit"] = len(held)
        with open(stats_path, "w", encoding="utf-8") as out:
            json.dump(summary, out)


def main(argv: list[str]) -> None:
    """Parse the command line (module docstring) and run."""
    port_dev, line_dev, rate_bps, buffer, default_s, stats_path, *pairs = argv
    delays_s = {int(p): float(d) for p, d in (pair.split("=") for pair in pairs)}
    run((port_dev, line_dev), float(rate_bps), int(buffer), float(default_s), delays_s, stats_path)


if __name__ == "__main__":
    main(sys.argv[1:])

"""The testbed's propagation delay: a user-space line that holds each flow's ACKs for its RTT.

This kernel has no ``netem``, so the router sends every packet that comes back from the
receiver into a TUN device (a policy route on the receiver-side port); this process reads
each one, holds it until its flow's delay has passed, and writes it back unchanged into the
TUN device, from which the router forwards it to the senders. The flow is named by the
packet's TCP destination port (the sender's source port, which the testbed's senders bind);
packets of other ports (and non-TCP packets) get the default delay. All of a flow's packets
get the same delay, so the line never reorders a flow, and it never drops: the device's
queue towards this process is made longer than any window (``txqueuelen``), and the
testbed reads the device's drop counter after each run (:mod:`validation.testbed.bed`).

Run inside the router's namespace::

    python -m validation.testbed.delay_line DEVICE DEFAULT_S STATS_PATH [PORT=DELAY_S ...]

It tries to run at a real-time priority (root may) so that a loaded machine delays its
releases less; on SIGTERM or SIGINT it writes how late its releases were to ``STATS_PATH``
(JSON: packets, mean, 99th percentile and largest lateness in seconds) and exits.
"""

from __future__ import annotations

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

_TUNSETIFF = 0x400454CA
_IFF_TUN = 0x0001
_IFF_NO_PI = 0x1000
_TCP = 6
#: Lateness is kept in a histogram of 10 µs bins up to this many seconds (the rest: last bin).
_LATE_BIN_S = 10e-6
_LATE_BINS = 10_000


def open_tun(device: str) -> int:
    """A file descriptor on the existing TUN ``device`` (packets without a header)."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, _TUNSETIFF, struct.pack("16sH", device.encode(), _IFF_TUN | _IFF_NO_PI))
    os.set_blocking(fd, False)
    return fd


def destination_port(packet: bytes) -> int | None:
    """The TCP destination port of an IPv4 packet, or None for anything else."""
    if len(packet) < 24 or packet[0] >> 4 != 4 or packet[9] != _TCP:
        return None
    header_bytes = 4 * (packet[0] & 0x0F)
    if len(packet) < header_bytes + 4:
        return None
    port: int = struct.unpack_from("!H", packet, header_bytes + 2)[0]
    return port


class _Stop(Exception):
    pass


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def run(device: str, default_s: float, delays_s: dict[int, float], stats_path: str) -> None:
    """Hold and release packets until SIGTERM/SIGINT; then write the lateness statistics."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (PermissionError, OSError):
        pass  # the testbed's RTT checks tell whether the releases were late
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    fd = open_tun(device)
    held: list[tuple[float, int, bytes]] = []
    sequence = 0
    late = [0] * _LATE_BINS
    late_sum_s = 0.0
    late_max_s = 0.0
    released = 0
    clock = time.monotonic
    try:
        while True:
            now = clock()
            while held and held[0][0] <= now:
                due, _, packet = heapq.heappop(held)
                os.write(fd, packet)
                lateness_s = now - due
                released += 1
                late_sum_s += lateness_s
                late_max_s = max(late_max_s, lateness_s)
                late[min(int(lateness_s / _LATE_BIN_S), _LATE_BINS - 1)] += 1
                now = clock()
            timeout_s = max(0.0, held[0][0] - now) if held else 0.5
            readable, _, _ = select.select([fd], [], [], timeout_s)
            if readable:
                arrival = clock()
                while True:
                    try:
                        packet = os.read(fd, 65536)
                    except BlockingIOError:
                        break
                    delay_s = delays_s.get(destination_port(packet) or -1, default_s)
                    heapq.heappush(held, (arrival + delay_s, sequence, packet))
                    sequence += 1
    except _Stop:
        pass
    finally:
        p99_s = 0.0
        if released:
            running = 0
            for index, count in enumerate(late):
                running += count
                if running >= 0.99 * released:
                    p99_s = (index + 1) * _LATE_BIN_S
                    break
        stats = {
            "packets": released,
            "held_at_exit": len(held),
            "late_mean_s": late_sum_s / released if released else 0.0,
            "late_p99_s": p99_s,
            "late_max_s": late_max_s,
            "late_over_1ms": sum(late[100:]),
        }
        with open(stats_path, "w", encoding="utf-8") as out:
            json.dump(stats, out)


def main(argv: list[str]) -> None:
    """Parse ``DEVICE DEFAULT_S STATS_PATH [PORT=DELAY_S ...]`` and run."""
    device, default_s, stats_path, *pairs = argv
    delays_s = {int(p): float(d) for p, d in (pair.split("=") for pair in pairs)}
    run(device, float(default_s), delays_s, stats_path)


if __name__ == "__main__":
    main(sys.argv[1:])

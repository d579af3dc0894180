"""Without a capacity, C is at least the rate a trace sustained through a window of 100 ms,
and bursts do not raise it (``validation/traces/peak_rate.py``).

Two traces written here packet by packet, with the truth known: a transfer through a
token-bucket shaper that straddles a second's border (the busiest second saw half of it), and
a saturated FIFO link whose capture stamped packets in trains and once stalled (bursts of
packets with one time). Each is read by ``estimate_trace`` as a CSV trace.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from validation.traces import estimate_trace, open_trace
from validation.traces.peak_rate import PeakRate

PACKET = 1500  # bytes


def _write(path: Path, times: list[float]) -> None:
    lines = ["time_s,flow,size_bytes,dropped"]
    lines += [f"{t:.9f},0,{PACKET},0" for t in times]
    path.write_text("\n".join(lines) + "\n")


def _busiest_second(times: list[float]) -> float:
    """The rate of the busiest whole second counted from the first packet, bit/s."""
    seconds = np.floor(np.array(times) - times[0]).astype(int)
    return float(np.bincount(seconds).max()) * PACKET * 8.0


def _shaped(rate_bps: float, bucket_bytes: float, start_s: float, end_s: float) -> list[float]:
    """Departures of a sender backlogged from ``start_s`` to ``end_s`` behind a token bucket
    (full at the start) on a 1 Gbit/s port."""
    line_s = PACKET * 8.0 / 1e9
    tokens, now, times = bucket_bytes, start_s, []
    while now < end_s:
        if tokens < PACKET:  # wait for the bucket to hold a packet
            now += (PACKET - tokens) * 8.0 / rate_bps
            tokens = float(PACKET)
        times.append(now)
        tokens -= PACKET
        now += line_s
        tokens = min(bucket_bytes, tokens + line_s * rate_bps / 8.0)
    return times


def test_a_shaped_transfer_straddling_a_second_gives_the_shaper_s_rate(tmp_path: Path) -> None:
    rate = 20e6
    # 0.6 s of transfer from 1.7 s (straddling 2 s) in a 5 s trace: a packet every 0.5 s
    # before and after keeps the span.
    transfer = _shaped(rate, 3000.0, 1.7, 2.3)
    times = sorted([0.0, 0.5, 1.0, 1.5, *transfer, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0])
    path = tmp_path / "shaped.csv"
    _write(path, times)
    # The busiest second held 0.3 s of the transfer: under a third of the shaper's rate.
    assert _busiest_second(times) < 0.35 * rate
    est = estimate_trace(open_trace(path))
    assert est.capacity_source == "estimated"
    # After the bucket's first two packets (at 1 Gbit/s), the shaper spaces packets at
    # exactly 1500 B / 20 Mbit/s: every later piece of a window is at the shaper's rate, the
    # first piece of one starting in the bucket's burst above it; the window takes its
    # slowest piece, so the estimate is the shaper's rate (to the CSV's 1 ns rounding).
    assert est.capacity_bps == pytest.approx(rate, rel=1e-5)
    assert any("100 ms" in note for note in est.notes)


def _stamped(capacity_bps: float, seconds: float, train: int, stall_at: int, stall: int) -> list:
    """A link saturated for ``seconds``, its departures stamped by a capture that delivers them
    ``train`` at a time (each with the last one's time) and once, at packet ``stall_at``,
    holds ``stall`` packets and stamps them together."""
    gap = PACKET * 8.0 / capacity_bps
    true = np.arange(int(seconds / gap)) * gap
    stamped = true.copy()
    for first in range(0, true.size, train):
        stamped[first : first + train] = true[min(first + train, true.size) - 1]
    stamped[stall_at : stall_at + stall] = true[stall_at + stall - 1]
    return [float(t) for t in stamped]


def test_bursts_of_a_capture_do_not_raise_the_rate_above_the_link_s(tmp_path: Path) -> None:
    capacity = 10e6
    times = _stamped(capacity, 3.0, train=8, stall_at=1000, stall=30)
    path = tmp_path / "bursty.csv"
    _write(path, times)
    # A plain 100 ms window from the stall's 30 packets on holds them and 100 ms of the link:
    # 36 % above its rate. (Computed here from the times, not by the code under test.)
    at = np.array(times)
    plain = (np.searchsorted(at, at + 0.1, "left") - np.arange(at.size)) * PACKET * 8.0 / 0.1
    assert plain[1000] > 1.3 * capacity
    peak = PeakRate()
    for batch in np.array_split(at, 7):  # as batches stream past
        peak.advance(batch, np.full(batch.size, PACKET))
    # A piece from one train's first packet to another's carried whole trains in their own
    # time, at the link's rate; a piece that starts inside a train carried less in that time;
    # the stall's piece is never a window's slowest. So the windows' rate is the link's, not
    # above it.
    assert peak.rate_bps <= capacity * (1 + 1e-12)
    assert peak.rate_bps == pytest.approx(capacity, rel=1e-9)
    # The estimate: the busiest whole second, which the trains do raise (a second holds 840
    # packets where the link sent 833.3), not the windows.
    est = estimate_trace(open_trace(path))
    assert est.capacity_bps == _busiest_second(times) == 840 * PACKET * 8.0
